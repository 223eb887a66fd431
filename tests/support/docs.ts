// The README and docs/*.md, whose code blocks the tests run as written.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '../..');

/** A document's text: 'README.md' or a file of docs/. */
export const documentText = (name: string): string => readFileSync(join(root, name === 'README.md' ? name : join('docs', name)), 'utf8');

/** Every document: the README, then docs/*.md. */
export const DOCUMENTS = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).sort()];

/** The fenced blocks of `language` in one document, or in all of them. */
export function codeBlocks(language: string, name?: string): string[] {
  const texts = name === undefined ? DOCUMENTS.map(documentText) : [documentText(name)];
  return texts.flatMap((text) => [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]));
}
