/**
 * Drop-in for the handbook: upgrades `<div class="aig-widget" data-widget="…">` placeholders to
 * `<sampling-lab>` widgets, now and whenever the page's content changes (MkDocs Material's instant
 * navigation swaps the article without reloading). data-* attributes become the widget's
 * kebab-case parameters: `data-temperature="0.7"` → `temperature="0.7"`.
 * @module sampling-lab/embed
 */
import { SamplingLabElement } from './define.js';
import { WIDGET_ALIASES } from '../widgets/experiments/index.js';

const PLACEHOLDERS = '.aig-widget[data-widget]:not([data-ready])';

/** Replaces each placeholder under `root` not yet upgraded with its `<sampling-lab>` widget; returns how many it upgraded. */
export function upgradePlaceholders(root: ParentNode = document): number {
  const placeholders = root.querySelectorAll<HTMLElement>(PLACEHOLDERS);
  for (const placeholder of placeholders) {
    const name = placeholder.dataset.widget!;
    const widget = document.createElement('sampling-lab');
    widget.setAttribute('experiment', WIDGET_ALIASES[name] ?? name);
    for (const [key, value] of Object.entries(placeholder.dataset)) {
      if (key === 'widget' || key === 'ready' || value === undefined) continue;
      widget.setAttribute(key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`), value);
    }
    placeholder.replaceChildren(widget);
    placeholder.dataset.ready = '';
  }
  return placeholders.length;
}

function watch(): void {
  upgradePlaceholders();
  new MutationObserver(() => upgradePlaceholders()).observe(document.body, { childList: true, subtree: true });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch, { once: true });
else watch();

export { SamplingLabElement };
