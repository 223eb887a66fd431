// How tall each widget is once drawn in its default state (measured on the demo page at 1280,
// 700 and 390 px), so that a page can reserve the space and nothing around it moves as it loads.
export const RESERVED_HEIGHTS: Record<string, [wide: number, medium: number, narrow: number]> = {
  filters: [1850, 2145, 2325],
  samplers: [1774, 1975, 2092],
  'mc-error': [598, 627, 805],
  'eval-error': [631, 757, 781],
  sequence: [848, 971, 1377],
  speculative: [935, 935, 1316],
  importance: [1247, 1507, 3443],
  'sample-size': [564, 681, 625],
};

/** CSS that gives each <sampling-lab> its drawn height before it starts; hosts may inline it in their <head>. */
export function reservedHeights(): string {
  const rules = (column: number) => Object.entries(RESERVED_HEIGHTS)
    .map(([name, heights]) => `sampling-lab[experiment="${name}"] { min-height: ${heights[column]}px; }`).join('\n');
  return `${rules(0)}\n@media (max-width: 879px) {\n${rules(1)}\n}\n@media (max-width: 479px) {\n${rules(2)}\n}`;
}

