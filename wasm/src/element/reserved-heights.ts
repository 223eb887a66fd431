// How tall each widget is once drawn in its default state (measured on the demo page at 1280,
// 700 and 390 px), so that a page can reserve the space and nothing around it moves as it loads.
export const RESERVED_HEIGHTS: Record<string, [wide: number, medium: number, narrow: number]> = {
  filters: [1395, 1687, 1784],
  samplers: [1198, 1348, 1181],
  'mc-error': [1382, 1497, 1920],
  'eval-error': [631, 713, 781],
  sequence: [859, 954, 1109],
  speculative: [1363, 1500, 1579],
  importance: [1510, 1760, 3120],
  'sample-size': [523, 619, 625],
};

/** CSS that gives each <sampling-lab> its drawn height before it starts; hosts may inline it in their <head>. */
export function reservedHeights(): string {
  const rules = (column: number) => Object.entries(RESERVED_HEIGHTS)
    .map(([name, heights]) => `sampling-lab[experiment="${name}"] { min-height: ${heights[column]}px; }`).join('\n');
  return `${rules(0)}\n@media (max-width: 879px) {\n${rules(1)}\n}\n@media (max-width: 479px) {\n${rules(2)}\n}`;
}

