// Chinese by default, English when <html lang="en…">; widgets re-render when lang changes. The
// text itself is one file per language (languages/), typed against each other.
import { en } from './languages/en.js';
import { zh, type Strings } from './languages/zh.js';

export type { Strings };

/**
 * A SamplingLabError in the reader's language: the core names the argument; a known argument
 * gets its own sentence (ending in ':' when the core's detail should follow).
 */
export function localiseError(error: { argument: string; message: string }): string {
  const s = strings();
  const sentence = s.errors[error.argument];
  if (sentence === undefined) return s.invalidArgument(error.argument, error.message);
  return /[:：]\s*$/.test(sentence) ? sentence + error.message : sentence;
}

/** Of one text per language, the reader's: English when <html lang="en…">, else Chinese. The page picks its own text with it too. */
export function localised<T>(texts: { zh: T; en: T }): T {
  return document.documentElement.lang.toLowerCase().startsWith('en') ? texts.en : texts.zh;
}

/** The widgets' text in the reader's language (see {@link localised}); read it again after `<html lang>` changes. */
export function strings(): Strings {
  return localised({ zh, en });
}
/** Whether the widget shows its dark colours: the host's scheme, else the system's. */
export function isDark(widget: Element): boolean {
  return getComputedStyle(widget).colorScheme.includes('dark');
}

/** Calls back when <html lang> or the host's colour scheme changes. */
export function onHostChange(callback: () => void): () => void {
  const observer = new MutationObserver(callback);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['lang', 'class', 'data-md-color-scheme'] });
  const scheme = matchMedia('(prefers-color-scheme: dark)');
  scheme.addEventListener('change', callback);
  return () => {
    observer.disconnect();
    scheme.removeEventListener('change', callback);
  };
}
