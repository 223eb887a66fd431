// Debian's Chromium through playwright-core, as the tests and the page benchmark launch it: a
// fresh profile and no background traffic (this machine's network is closed).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

/** @returns {Promise<import('playwright-core').BrowserContext>} */
export function launchChromium() {
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'sampling-lab-chromium-')), {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}
