import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
const [url, scheme, width] = [process.argv[2], process.argv[3] ?? 'light', Number(process.argv[4] ?? 1280)];
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: scheme });
await page.goto(url);
for (const host of await page.locator('sampling-lab').all()) { await host.scrollIntoViewIfNeeded(); await page.waitForTimeout(300); }
await page.waitForTimeout(1500);
await page.addScriptTag({ content: readFileSync('node_modules/axe-core/axe.min.js', 'utf8') });
const result = await page.evaluate(() => window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } }));
for (const v of result.violations) console.log(v.id, v.impact, v.nodes.length, v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ' :: ' + n.failureSummary.split('\n').slice(0,3).join(' ')).join('\n   '));
await browser.close();
