// The benches' figures in a document of docs/: the text between <!-- name:start --> and
// <!-- name:end --> becomes the given lines.
import { readFileSync, writeFileSync } from 'node:fs';

export function writeReadmeSection(name, lines, document) {
  const text = readFileSync(document, 'utf8');
  const [start, end] = [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`];
  writeFileSync(document, text.slice(0, text.indexOf(start) + start.length) + '\n' + lines.join('\n') + '\n' + text.slice(text.indexOf(end)));
}
