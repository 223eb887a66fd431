#!/usr/bin/env bash
# Runs every test: native GoogleTest (ctest), a 10-second fuzz pass per target with every input
# that ever crashed one, then Vitest on the package in Node and the page in Chromium. Exits
# non-zero if any fails.
set -uo pipefail
cd "$(dirname "$0")/.."

status=0
(cd build/native && ctest --output-on-failure -j"$(nproc)") || status=1
bash scripts/fuzz.sh 10 || status=1
npx vitest run --reporter=default --reporter=json --outputFile=build/vitest-results.json || status=1
node -e '
  const r = require("./build/vitest-results.json");
  console.log(`vitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
' || status=1
exit $status
