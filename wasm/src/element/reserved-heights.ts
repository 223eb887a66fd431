// How tall each widget is once drawn in its default state (measured on the demo page at 1280,
// 700 and 390 px), so that a page can reserve the space and nothing around it moves as it loads.
export const RESERVED_HEIGHTS: Record<string, [wide: number, medium: number, narrow: number]> = {
  filters: [1503, 1795, 1800],
  samplers: [1198, 1348, 1181],
  'mc-error': [1095, 1125, 1865],
  'eval-error': [631, 757, 781],
  sequence: [859, 954, 1109],
  speculative: [1385, 1608, 1579],
  importance: [1510, 1977, 3120],
  'sample-size': [564, 681, 625],
};

/** CSS that gives each <sampling-lab> its drawn height before it starts; hosts may inline it in their <head>. */
export function reservedHeights(): string {
  const rules = (column: number) => Object.entries(RESERVED_HEIGHTS)
    .map(([name, heights]) => `sampling-lab[experiment="${name}"] { min-height: ${heights[column]}px; }`).join('\n');
  return `${rules(0)}\n@media (max-width: 879px) {\n${rules(1)}\n}\n@media (max-width: 479px) {\n${rules(2)}\n}`;
}

