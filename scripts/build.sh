#!/usr/bin/env bash
# Builds the native core and tests, the WebAssembly module and the npm package.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs  # Debian's emscripten finds acorn there

cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$(nproc)"

if [[ ! -f build/wasm/CMakeCache.txt ]]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build/wasm -j"$(nproc)"

npx tsc -p wasm/tsconfig.json
cp wasm/src/sampling-lab-core.d.ts wasm/dist/

npx tsc -p web/tsconfig.json
npx vite build --config web/vite.config.ts --logLevel warn
