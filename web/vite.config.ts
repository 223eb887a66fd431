import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  // Relative asset URLs: the built page works from any static host and any sub-path.
  base: './',
  // Pre-bundling would rewrite the package's .wasm URL; serve it as it is.
  optimizeDeps: { exclude: ['sampling-lab'] },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  worker: { format: 'es' },
  server: { port: 5173, strictPort: false },
});
