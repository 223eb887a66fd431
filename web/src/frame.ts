// An iframe embed: one widget, language and theme from the query (?lang=en&theme=dark), its
// settings from the other parameters, reporting the widget's own height to the parent page so
// the iframe fits it as it grows and shrinks.
import 'sampling-lab/define';
import { pageText } from './text';
import './frame.css';

const query = new URLSearchParams(location.search);
const html = document.documentElement;
html.lang = query.get('lang')?.toLowerCase().startsWith('en') ? 'en' : 'zh-CN';
const theme = query.get('theme');
if (theme === 'dark' || theme === 'light') html.classList.add(theme);

const widget = document.querySelector('sampling-lab')!;
for (const [key, value] of query) if (key !== 'lang' && key !== 'theme') widget.setAttribute(key, value);

// The embed stands alone: its own heading, the chapter section's title in the frame's language.
const TITLES: Record<string, keyof ReturnType<typeof pageText>['page']> = {
  filters: 'shapeTitle', temperature: 'shapeTitle', samplers: 'samplersTitle', 'mc-error': 'mcErrorTitle',
  'eval-error': 'evalErrorTitle', sequence: 'sequenceTitle', speculative: 'speculativeTitle',
  importance: 'importanceTitle', 'sample-size': 'sampleSizeTitle',
};
const title = TITLES[widget.getAttribute('experiment') ?? ''];
if (title) {
  const heading = document.createElement('h1');
  heading.className = 'frame-title';
  heading.textContent = pageText().page[title];
  document.title = `Sampling Lab · ${heading.textContent}`;
  widget.before(heading);
}

// The height of what the frame shows, heading and widget, for the iframe to fit.
let reported = 0;
new ResizeObserver(() => {
  const height = Math.ceil(document.body.getBoundingClientRect().height);
  if (height === reported) return;
  reported = height;
  parent.postMessage({ type: 'sampling-lab:height', experiment: widget.getAttribute('experiment'), height }, '*');
}).observe(document.body);
