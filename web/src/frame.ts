// An iframe embed: one widget, language and theme from the query (?lang=en&theme=dark),
// reporting its height to the parent page so the iframe can fit it.
import 'sampling-lab/define';

const query = new URLSearchParams(location.search);
const html = document.documentElement;
if (query.get('lang')) html.lang = query.get('lang')!;
if (query.get('theme') === 'dark') html.classList.add('dark');
if (query.get('theme') === 'light') html.classList.add('light');
html.style.background = 'transparent';
document.body.style.margin = '0';

const widget = document.querySelector('sampling-lab')!;
for (const [key, value] of query) if (key !== 'lang' && key !== 'theme') widget.setAttribute(key, value);

let reported = 0;
new ResizeObserver(() => {
  const height = Math.ceil(document.documentElement.scrollHeight);
  if (height === reported) return;
  reported = height;
  parent.postMessage({ type: 'sampling-lab:height', experiment: widget.getAttribute('experiment'), height }, '*');
}).observe(document.body);
