// An iframe embed: one widget, language and theme from the query (?lang=en&theme=dark), its
// settings from the other parameters, reporting the widget's own height to the parent page so
// the iframe fits it as it grows and shrinks.
import 'sampling-lab/define';
import './frame.css';

const query = new URLSearchParams(location.search);
const html = document.documentElement;
html.lang = query.get('lang')?.toLowerCase().startsWith('en') ? 'en' : 'zh-CN';
const theme = query.get('theme');
if (theme === 'dark' || theme === 'light') html.classList.add(theme);

const widget = document.querySelector('sampling-lab')!;
for (const [key, value] of query) if (key !== 'lang' && key !== 'theme') widget.setAttribute(key, value);

let reported = 0;
new ResizeObserver(() => {
  const height = Math.ceil(widget.getBoundingClientRect().height);
  if (height === reported) return;
  reported = height;
  parent.postMessage({ type: 'sampling-lab:height', experiment: widget.getAttribute('experiment'), height }, '*');
}).observe(widget);
