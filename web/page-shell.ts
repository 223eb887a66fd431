// Build-time page shell: the self-test's questions from one line each, the page's Chinese text
// written into the HTML (readable before, and without, JavaScript; no layout shift when it
// arrives), the table of contents from the section
// headings, and every formula rendered by KaTeX (HTML plus MathML) so it looks the same on every
// system and in both languages.
import katex from 'katex';
import type { Plugin } from 'vite';
import { reservedHeights } from '../wasm/src/widgets/reserved-heights';
import { zh } from './src/languages/zh';

type Key = keyof typeof zh.page;

function unescape(html: string): string {
  return html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A self-test question: its legend, its choices, the reveal button and the folded answer. */
function selfTestQuestion(_: string, n: string, choices: string, correct: string, link: string): string {
  const labels = Array.from({ length: Number(choices) }, (__, i) =>
    `<label class="self-test-choice"><input type="radio" name="self-test-${n}" value="${i}"><span data-i18n="selfTestQ${n}Choice${i + 1}"></span></label>`);
  return `<fieldset class="self-test-question" data-correct="${correct}">`
    + `<legend data-i18n="selfTestQ${n}"></legend>${labels.join('')}`
    + '<button type="button" class="self-test-reveal" data-i18n="selfTestReveal" disabled></button>'
    + `<div class="self-test-answer" hidden><p class="self-test-verdict"></p><p data-i18n="selfTestA${n}"></p>`
    + `<a href="${link}" data-i18n="selfTestLink${n}"></a></div></fieldset>`;
}

export function pageShell(): Plugin {
  return {
    name: 'page-shell',
    transformIndexHtml(html) {
      const headings = [...html.matchAll(/<section[^>]*>\s*<h2 id="([\w-]+)" data-i18n="(\w+)">/g)];
      const contents = `<ol>${headings.map(([, id, key]) => `<li><a href="#${id}" data-i18n="${key}"></a></li>`).join('')}</ol>`;
      return html
        .replace(/<fieldset class="self-test-question" data-question="(\d+)" data-choices="(\d+)" data-correct="(\d+)" data-link="([^"]+)"><\/fieldset>/g, selfTestQuestion)
        // Widgets' heights before their script runs: nothing moves while they load.
        .replace('</head>', `<style>sampling-lab { display: block; }\n${reservedHeights()}</style>\n</head>`)
        .replace(/(<nav class="toc"[^>]*>[\s\S]*?<\/h2>)/, `$1${contents}`)
        .replace(/(<(\w+)[^>]*data-i18n="(\w+)"[^>]*>)(<\/\2>)/g, (_, open: string, _tag, key: Key, close: string) => {
          const text = zh.page[key];
          if (text === undefined) throw new Error(`the page's text (web/src/languages/zh.ts) has no '${key}'`);
          return open + escape(text) + close;
        })
        .replace(/<p class="formula" data-tex="([^"]*)"><\/p>/g, (_, tex: string) => {
          const source = unescape(tex);
          const rendered = katex.renderToString(source, { displayMode: true, output: 'htmlAndMathml', throwOnError: true });
          return `<div class="formula">${rendered}</div>`;
        });
    },
  };
}
