#!/usr/bin/env bash
# Runs every test: native GoogleTest (ctest), every committed fuzz input replayed under ASan and
# UBSan (scripts/fuzz.sh --smoke), then Vitest on the package in Node and, beside it, the page in
# Chromium. Exits non-zero if any fails, and ends with a line per suite, so
# the last lines of a log say what failed.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p build

status=0
summary=()
started=$SECONDS
(cd build/native && ctest --output-on-failure -j"$(nproc)") 2>&1 | tee build/ctest.log
if ((PIPESTATUS[0] == 0)); then
  summary+=("ctest: $(grep -E 'tests passed' build/ctest.log | tail -1) ($((SECONDS - started)) s)")
else
  status=1
  summary+=("ctest: FAILED: $(grep -E 'tests passed|\(Failed\)|\(Timeout\)|\*\*\*' build/ctest.log | tr '\n' ' ')")
fi

started=$SECONDS
bash scripts/fuzz.sh --smoke 2>&1 | tee build/fuzz-summary.log
if ((PIPESTATUS[0] == 0)); then
  summary+=("fuzz: every target passed ($((SECONDS - started)) s, the fuzz build included)")
else
  status=1
  summary+=("fuzz: FAILED: $(grep -E 'CRASH|crashes again|Error' build/fuzz-summary.log | tr '\n' ' ')")
fi

# Vitest: the Node files and the Chromium files in two processes side by side (each runs its files
# one at a time), so both cores work; each writes its own report.
started=$SECONDS
# The tiny models both processes load, built first.
node --input-type=module -e 'import { ensureSpeculativePair, ensureTinyModel } from "./tests/support/tiny-model.js"; ensureTinyModel(); ensureSpeculativePair();'
rm -f build/vitest-node.json build/vitest-browser.json
# Two Node files, which spend their time in child processes (the CLI, the README's snippets), run
# with the browser files so that the two processes take about as long (213 s of Node files against
# 174 s of browser files).
beside_browser=(tests/node/cli-decode.test.ts tests/node/readme.test.ts)
npx vitest run tests/node "${beside_browser[@]/#/--exclude=}" --reporter=default --reporter=json --outputFile=build/vitest-node.json > build/vitest-node.log 2>&1 &
node_suite=$!
# The browser files share their support modules (Vite, playwright): imported once, not per file.
npx vitest run tests/browser "${beside_browser[@]}" --no-isolate --reporter=default --reporter=json --outputFile=build/vitest-browser.json || status=1
wait $node_suite || status=1
cat build/vitest-node.log
summary+=("$(node -e '
  const reports = ["node", "browser"].map((suite) => { try { return require(`./build/vitest-${suite}.json`); } catch { return undefined; } });
  if (reports.includes(undefined)) { console.log("vitest: a suite wrote no report"); process.exit(); }
  const failed = reports.flatMap((r) => r.testResults.flatMap((f) => f.assertionResults.filter((a) => a.status === "failed").map((a) => a.fullName)));
  const passed = reports.reduce((n, r) => n + r.numPassedTests, 0);
  console.log(`vitest: ${passed} passed, ${failed.length} failed${failed.length ? ": " + failed.join("; ") : ""}`);
') ($((SECONDS - started)) s)")

printf '%s\n' "${summary[@]}"
exit $status
