// Redraw time of the 151,936-token distribution widget after a slider move, measured in
// Chromium on the built page: from the input event to the end of the widget's redraw (its
// animation-frame callback and the chart commit), over 60 moves.
import { preview } from 'vite';
import { launchChromium } from '../tests/support/launch-chromium.js';

const server = await preview({ configFile: new URL('../web/vite.config.ts', import.meta.url).pathname, preview: { host: '127.0.0.1', port: 0 }, logLevel: 'warn' });
const context = await launchChromium();
try {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(server.resolvedUrls.local[0]);
  const widget = page.locator('#shape');
  // Widgets start when they come into view.
  await widget.scrollIntoViewIfNeeded();
  await widget.getByRole('button', { name: /151,936/ }).click();
  await widget.locator('svg.sl-lines path.line').first().waitFor();
  const samples = await page.evaluate(async () => {
    const input = document.querySelector('#shape input[name="temperature"]');
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now())));
    const times = [];
    for (let i = 0; i < 60; i++) {
      await frame();
      let start = 0;
      const started = new Promise((resolve) => requestAnimationFrame(() => { start = performance.now(); resolve(); }));
      input.value = String(0.3 + (i % 30) * 0.05);
      input.dispatchEvent(new Event('input'));
      const ended = new Promise((resolve) => requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0)));
      await started;
      times.push((await ended) - start);
    }
    return times;
  });
  samples.sort((a, b) => a - b);
  const median = samples[samples.length >> 1];
  const p90 = samples[Math.floor(samples.length * 0.9)];
  console.log(`page redraw, 151,936 tokens: median ${median.toFixed(1)} ms, p90 ${p90.toFixed(1)} ms (goal: median ≤ 10 ms, issue 30)`);
} finally {
  await context.close();
  await new Promise((resolve) => server.httpServer.close(resolve));
}
