// TypeDoc's API reference of the package's public entry points (`npm run docs` → build/api/),
// and the checks tests/node/api-docs.test.ts runs: every export documented, no link broken, no
// type referenced that the reference leaves out. It reads the TypeScript sources, and with them
// the files scripts/build.sh generates (src/generated/, src/sampling-lab-*.d.ts): build first.
import { readFileSync } from 'node:fs';

// One entry point per subpath of package.json's "exports", from its `types` (dist/entries/X.d.ts
// is compiled from src/entries/X.ts; "." and its Node twin share theirs): a new subpath is
// documented, and checked, without a change here.
const { exports } = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8'));
const entryPoints = Object.values(exports).flatMap((target) => {
  const types = typeof target === 'object' ? target.types : undefined;
  return types ? [types.replace(/^\.\/dist\/(.*)\.d\.ts$/, './src/$1.ts')] : [];
});

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: 'sampling-lab',
  tsconfig: './tsconfig.json',
  entryPoints,
  out: '../build/api',
  readme: 'none',
  // Source links without asking git (a fresh clone may have no remote).
  disableGit: true,
  basePath: '..',
  sourceLinkTemplate: 'https://github.com/sampling-lab/sampling-lab/blob/main/{path}#L{line}',
  // tsc type-checks the sources in the build; TypeDoc skipping that nearly halves its time.
  skipErrorChecking: true,
  excludePrivate: true,
  excludeInternal: true,
  excludeExternals: true,
  validation: { notExported: true, invalidLink: true, notDocumented: true },
  treatWarningsAsErrors: true,
  // Properties may go undocumented where their name says it all; everything else may not.
  requiredToBeDocumented: ['Enum', 'Variable', 'Function', 'Class', 'Interface', 'TypeAlias'],
  intentionallyNotExported: [
    // The Emscripten modules the Lab classes wrap (loadSamplingLab makes them).
    'CoreModule',
    'ExperimentsCoreModule',
    // The widgets' Chinese text, which Strings is the type of; the list of values ModelDtype is.
    'zh',
    'MODEL_DTYPES',
  ],
};
