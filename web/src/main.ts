import './style.css';
import { strings, onLanguageChange } from './i18n';
import { SamplingLabElement } from './sampling-lab-element';

customElements.define('sampling-lab', SamplingLabElement);

function translatePage(): void {
  const s = strings() as unknown as Record<string, string>;
  for (const node of document.querySelectorAll<HTMLElement>('[data-i18n]')) {
    node.textContent = s[node.dataset.i18n!];
  }
  document.title = `Sampling Lab · ${s.pageTitle}`;
}

document.querySelector('.lang-switch')?.addEventListener('click', () => {
  const html = document.documentElement;
  html.lang = html.lang.startsWith('en') ? 'zh' : 'en';
});
onLanguageChange(translatePage);
translatePage();
