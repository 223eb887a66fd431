import { chromium } from 'playwright-core';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
for (const width of [1280, 700, 390]) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto('http://127.0.0.1:8765/');
  for (const host of await page.locator('sampling-lab').all()) { await host.scrollIntoViewIfNeeded(); await page.waitForTimeout(400); }
  await page.waitForTimeout(4000);
  console.log(width, JSON.stringify(await page.locator('sampling-lab').evaluateAll((els) => els.map((e) => [e.id, Math.round(e.getBoundingClientRect().height)]))));
  await page.close();
}
await browser.close();
