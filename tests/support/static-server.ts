// Serves web/dist under a sub-path, as a documentation site would host it, plus any extra folders
// at their own paths (e.g. a local model under /models/).
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium, watchProblems } from './chromium';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png', '.txt': 'text/plain; charset=utf-8',
};

export async function serveDist(prefix: string, folders: Record<string, string> = {}): Promise<{ url: string; close(): Promise<void> }> {
  const mounts = Object.entries({ [prefix]: join(__dirname, '../../web/dist'), ...folders });
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url!, 'http://x').pathname);
    const mount = mounts.find(([at]) => path.startsWith(at));
    if (!mount) {
      response.writeHead(404).end();
      return;
    }
    const [at, root] = mount;
    let file = normalize(join(root, path.slice(at.length)));
    if (file.startsWith(root) && existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!file.startsWith(root) || !existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The built page as a documentation site serves it, open in a fresh Chromium, its console problems watched. */
export interface BuiltPage {
  site: Awaited<ReturnType<typeof serveDist>>;
  context: BrowserContext;
  page: Page;
  problems: string[];
  close(): Promise<void>;
}

export async function openBuiltPage(prepare?: (page: Page) => void): Promise<BuiltPage> {
  const site = await serveDist('/handbook/sampling/');
  const context = await launchChromium();
  const page = await context.newPage();
  const problems = watchProblems(page);
  prepare?.(page);
  await page.goto(site.url);
  return { site, context, page, problems, close: async () => { await context.close(); await site.close(); } };
}
