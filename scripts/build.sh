#!/usr/bin/env bash
# Builds the native core and tests, the WebAssembly module and the npm package.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs  # Debian's emscripten finds acorn there

# The npm packages (a fresh clone's npm ci waits on the network for about 14 s) install beside the
# compiles, which need none of them; the package's steps below wait for them.
mkdir -p build
bash scripts/npm-install.sh > build/npm-install.log 2>&1 &
npm_install=$!

cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
if [[ ! -f build/wasm/CMakeCache.txt ]]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
# Side by side: each build ends in links and one long test file that hold a single core, and the
# other build's compiles take the idle one (a fresh build: 135 s one after the other).
cmake --build build/native -j"$(nproc)" &
native_build=$!
cmake --build build/wasm -j"$(nproc)" || { kill "$native_build" "$npm_install"; exit 1; }
wait $native_build
wait $npm_install || { cat build/npm-install.log; exit 1; }
cat build/npm-install.log
# The modules and Emscripten's glue for them, beside the package's JavaScript (dist is rebuilt
# whole: tsc never deletes the output of a removed source).
rm -rf wasm/dist
mkdir -p wasm/dist
cp build/wasm/sampling-lab-core.{js,wasm} build/wasm/sampling-lab-experiments.{js,wasm} wasm/dist/

# TypeScript types of the options and experiment parameters, from the core's schema.
node scripts/generate-types.mjs
npx tsc -p wasm/tsconfig.json
cp wasm/src/sampling-lab-core.d.ts wasm/src/sampling-lab-experiments.d.ts wasm/dist/
# npm links a workspace's bin at install time, before dist/entries/cli.js exists: link it now, so that
# `npx sampling-lab` works in this checkout.
chmod +x wasm/dist/entries/cli.js
mkdir -p node_modules/.bin
ln -sf ../sampling-lab/dist/entries/cli.js node_modules/.bin/sampling-lab

# One iframe page per widget, from the template.
node --input-type=module -e '
  import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
  import { WIDGETS } from "./wasm/dist/widgets/experiments/index.js";
  const template = readFileSync("web/embed.template.html", "utf8").replace(/<!-- Template.*?-->\n/, "");
  rmSync("web/embed", { recursive: true, force: true });
  mkdirSync("web/embed", { recursive: true });
  for (const name of Object.keys(WIDGETS)) {
    writeFileSync(`web/embed/${name}.html`, template.replaceAll("EXPERIMENT", name));
  }
'

npx tsc -p web/tsconfig.json
npx vite build --config web/vite.config.ts --logLevel warn
echo "build: done in ${SECONDS} s"
