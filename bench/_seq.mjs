import { chromium } from 'playwright-core';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
for (const width of [1280, 390]) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto('http://127.0.0.1:8765/#sequence-title');
  await page.waitForTimeout(1200);
  await page.locator('#sequence button[data-value="beam"]').click();
  await page.waitForTimeout(800);
  await page.locator('#sequence').screenshot({ path: `/tmp/seq-${width}.png` });
}
await browser.close();
