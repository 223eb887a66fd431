// The demo page: the chapter's sections, each with its widget; the page text follows <html lang>.
import 'sampling-lab/define';
import { PAGE_TEXT } from './page-text';
import { mountRealModel } from './real-model';
import './style.css';

function translatePage(): void {
  const text = document.documentElement.lang.startsWith('en') ? PAGE_TEXT.en : PAGE_TEXT.zh;
  for (const node of document.querySelectorAll<HTMLElement>('[data-i18n]')) {
    node.textContent = text[node.dataset.i18n as keyof typeof text];
  }
  document.title = `Sampling Lab · ${text.pageTitle}`;
}

document.querySelector('.lang-switch')?.addEventListener('click', () => {
  const html = document.documentElement;
  html.lang = html.lang.startsWith('en') ? 'zh' : 'en';
});
new MutationObserver(translatePage).observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });
translatePage();
const realModel = document.querySelector<HTMLElement>('.real-model');
if (realModel) mountRealModel(realModel);
