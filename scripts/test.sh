#!/usr/bin/env bash
# Runs every test: native GoogleTest (ctest), every committed fuzz input replayed under ASan and
# UBSan (scripts/fuzz.sh --smoke), then Vitest on the package in Node and the page in Chromium. Exits non-zero if any fails, and ends with a line per suite, so
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

started=$SECONDS
npx vitest run --reporter=default --reporter=json --outputFile=build/vitest-results.json || status=1
summary+=("$(node -e '
  const r = require("./build/vitest-results.json");
  const failed = r.testResults.flatMap((f) => f.assertionResults.filter((a) => a.status === "failed").map((a) => a.fullName));
  console.log(`vitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed${failed.length ? ": " + failed.join("; ") : ""}`);
' 2>&1 || echo 'vitest: no report') ($((SECONDS - started)) s)")

printf '%s\n' "${summary[@]}"
exit $status
