import { readdirSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, searchForWorkspaceRoot } from 'vite';
import { pageShell } from './page-shell';

const root = fileURLToPath(new URL('.', import.meta.url));
const embedPages = Object.fromEntries(readdirSync(`${root}/embed`).map((file) => [`embed/${file.replace(/\.html$/, '')}`, `${root}/embed/${file}`]));

export default defineConfig({
  root,
  plugins: [pageShell()],
  // Relative asset URLs: the built page works from any static host and any sub-path.
  base: './',
  // Pre-bundling would rewrite the package's .wasm URL; serve it as it is.
  optimizeDeps: { exclude: ['sampling-lab'] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    rollupOptions: {
      input: { index: `${root}/index.html`, 'mkdocs-sample': `${root}/mkdocs-sample.html`, embed: `${root}/src/embed.ts`, ...embedPages },
      // The drop-in script keeps a stable name so a handbook theme can reference it.
      output: { entryFileNames: (chunk) => (chunk.name === 'embed' ? 'embed.js' : 'assets/[name]-[hash].js') },
    },
  },
  worker: { format: 'es' },
  // KaTeX's fonts are served from where node_modules really is (a worktree links main's).
  server: { port: 5173, strictPort: false, fs: { allow: [searchForWorkspaceRoot(root), realpathSync(`${root}/../node_modules/katex`)] } },
});
