// The benches' figures in README.md: the text between <!-- name:start --> and <!-- name:end -->
// becomes the given lines.
import { readFileSync, writeFileSync } from 'node:fs';

const readme = new URL('../README.md', import.meta.url);

export function writeReadmeSection(name, lines) {
  const text = readFileSync(readme, 'utf8');
  const [start, end] = [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`];
  writeFileSync(readme, text.slice(0, text.indexOf(start) + start.length) + '\n' + lines.join('\n') + '\n' + text.slice(text.indexOf(end)));
}
