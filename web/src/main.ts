// The demo page: the chapter's sections, each with its widget. The text is in the HTML in Chinese
// (written at build time) and follows <html lang>; ?lang=en or the toggle switches it, and the
// choice is kept in the address and in local storage.
import 'katex/dist/katex.min.css';
import 'sampling-lab/define';
import { pageText } from './text';
import { mountRealModel } from './real-model';
import { mountSelfTest } from './self-test';
import './style.css';

const STORAGE_KEY = 'sampling-lab:lang';
const html = document.documentElement;
type Language = 'zh-CN' | 'en';

function remembered(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;  // storage blocked: the address still carries the choice
  }
}

function chosenLanguage(): Language {
  const asked = new URLSearchParams(location.search).get('lang') ?? remembered() ?? html.lang;
  return asked.toLowerCase().startsWith('en') ? 'en' : 'zh-CN';
}

function setLanguage(language: Language): void {
  html.lang = language;
  const url = new URL(location.href);
  if (language === 'en') url.searchParams.set('lang', 'en');
  else url.searchParams.delete('lang');
  history.replaceState(history.state, '', url);
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // storage blocked: nothing to keep
  }
}

function translatePage(): void {
  const text = pageText().page;
  for (const node of document.querySelectorAll<HTMLElement>('[data-i18n]')) {
    node.textContent = text[node.dataset.i18n as keyof typeof text];
  }
  document.title = `Sampling Lab · ${text.pageTitle}`;
  // The toggle names the other language in that language: a screen reader must read it so.
  document.querySelector('.lang-switch')?.setAttribute('lang', html.lang.startsWith('en') ? 'zh' : 'en');
}

document.querySelector('.lang-switch')?.addEventListener('click', () => setLanguage(html.lang.startsWith('en') ? 'zh-CN' : 'en'));
new MutationObserver(translatePage).observe(html, { attributes: true, attributeFilter: ['lang'] });
// The choice from the address or storage, kept in both (the observer translates on a change).
const language = chosenLanguage();
if (language === html.lang) translatePage();
setLanguage(language);
mountSelfTest(document);
const realModel = document.querySelector<HTMLElement>('.real-model');
if (realModel) mountRealModel(realModel);
