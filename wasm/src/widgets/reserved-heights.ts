// How tall each widget is once drawn in its default state (measured on the demo page at 1280,
// 700 and 390 px), so that a page can reserve the space and nothing around it moves as it loads.
export const RESERVED_HEIGHTS: Record<string, [wide: number, medium: number, narrow: number]> = {
  filters: [1903, 2146, 2325],
  samplers: [1904, 1975, 2093],
  'mc-error': [609, 634, 826],
  'eval-error': [744, 867, 983],
  sequence: [878, 1001, 1406],
  speculative: [1427, 1427, 1964],
  importance: [1774, 2046, 4126],
  'sample-size': [1139, 1182, 1380],
};

/** CSS that gives each <sampling-lab> its drawn height before it starts; hosts may inline it in their <head>. */
export function reservedHeights(): string {
  const rules = (column: number) => Object.entries(RESERVED_HEIGHTS)
    .map(([name, heights]) => `sampling-lab[experiment="${name}"] { min-height: ${heights[column]}px; }`).join('\n');
  return `${rules(0)}\n@media (max-width: 879px) {\n${rules(1)}\n}\n@media (max-width: 479px) {\n${rules(2)}\n}`;
}

