import { chromium } from 'playwright-core';
const [url, out, width, scheme] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: Number(width), height: 900 }, colorScheme: scheme ?? 'light' });
await page.goto(url);
for (const host of await page.locator('sampling-lab').all()) { await host.scrollIntoViewIfNeeded(); await page.waitForTimeout(300); }
await page.waitForTimeout(1500);
await page.screenshot({ path: out, fullPage: true });
await browser.close();
