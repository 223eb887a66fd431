// The self-test at the top: the chapter's five questions, each answered by a choice before its
// button shows whether the choice was right, the chapter's own answer and a link to the section
// that shows it. The text is in the HTML (languages/); this adds the behaviour.
import { pageText } from './text';
import './self-test.css';

export function mountSelfTest(root: ParentNode): void {
  const questions = [...root.querySelectorAll<HTMLFieldSetElement>('.self-test-question')];
  const verdicts: (() => void)[] = [];
  for (const question of questions) {
    const choices = [...question.querySelectorAll<HTMLInputElement>('input[type="radio"]')];
    const reveal = question.querySelector<HTMLButtonElement>('.self-test-reveal')!;
    const answer = question.querySelector<HTMLElement>('.self-test-answer')!;
    const verdict = question.querySelector<HTMLElement>('.self-test-verdict')!;
    const correct = Number(question.dataset.correct);
    const showVerdict = () => {
      const chosen = choices.findIndex((c) => c.checked);
      if (answer.hidden || chosen < 0) return;
      const text = pageText().page;
      const right = chosen === correct;
      verdict.classList.toggle('right', right);
      verdict.textContent = right ? text.selfTestRight
        : text.selfTestWrong + (choices[correct].nextElementSibling?.textContent ?? '');
    };
    verdicts.push(showVerdict);
    for (const choice of choices) {
      choice.addEventListener('change', () => {
        reveal.disabled = false;
        showVerdict();
      });
    }
    reveal.addEventListener('click', () => {
      answer.hidden = false;
      reveal.hidden = true;
      showVerdict();
      answer.tabIndex = -1;
      answer.focus();
    });
  }
  // The verdict names the right choice in the page's language.
  new MutationObserver(() => { for (const verdict of verdicts) verdict(); })
    .observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });
}
