import { chromium } from 'playwright-core';
const [url, width] = [process.argv[2], Number(process.argv[3] ?? 1280)];
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width, height: 900 } });
await page.addInitScript(() => {
  window.__cls = 0; window.__shifts = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) if (!e.hadRecentInput) { window.__cls += e.value; window.__shifts.push([e.value, e.sources?.map((s) => s.node?.nodeName + '.' + (s.node?.className ?? '') + ' ' + s.previousRect?.height + '->' + s.currentRect?.height).join('; ')]); } }).observe({ type: 'layout-shift', buffered: true });
});
await page.goto(url);
await page.waitForTimeout(3000);
console.log(await page.evaluate(() => JSON.stringify({ cls: window.__cls, shifts: window.__shifts.slice(0, 8) }, null, 1)));
const small = await page.evaluate(() => { let min = 99, where = ''; for (const el of document.querySelectorAll('svg text, .sl-widget *')) { const r = el.getBoundingClientRect(); if (!r.width || !el.textContent.trim() || el.children.length) continue; const fs = el.tagName === 'text' ? parseFloat(getComputedStyle(el).fontSize) * (el.ownerSVGElement.getScreenCTM()?.a ?? 1) : parseFloat(getComputedStyle(el).fontSize); if (fs < min) { min = fs; where = el.tagName + ' ' + el.textContent.slice(0, 20); } } return [min, where]; });
console.log('smallest text', small);
await browser.close();
