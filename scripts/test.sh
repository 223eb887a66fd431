#!/usr/bin/env bash
# Runs every test: native GoogleTest (ctest), then Vitest on the package in Node and, beside it,
# the page in Chromium, while every committed fuzz input is replayed under ASan and UBSan
# (scripts/fuzz.sh --smoke) in the background. Exits non-zero if any fails, and ends with a line
# per suite, so the last lines of a log say what failed.
#   scripts/test.sh [--build]   --build runs scripts/build.sh first (`npm test`)
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p build

# glibc's malloc hands each freed block over 128 KB back to the kernel, so a test that makes a
# vocabulary-sized vector per case faults its pages in again every time; on this 2-core VM a fault
# costs about 17 µs, and a native test spent 60 % of its time in them. Transparent huge pages for
# malloc's own mappings (glibc ≥ 2.35) fault 2 MB at a time: that test went from 6.2 s to 2.7 s.
# Every process below inherits it (compilers, ctest, Node, Chromium); the shipped code is untouched.
export GLIBC_TUNABLES=glibc.malloc.hugetlb=1

status=0
summary=()

# The sanitized fuzz build and its replays need only the core's sources. They start first, at a
# lower priority, and so take the cores that the build's links, tsc and Vite, and the browser
# tests' waits leave idle (a fresh clone's `npm test` ran with a fifth of its core-time idle).
fuzz_started=$SECONDS
# In a process group of its own (setsid does not fork: a script's background job never leads a
# group), so that an interrupt or a failed build stops the whole of it.
setsid nice -n 10 bash scripts/fuzz.sh --smoke --no-npy > build/fuzz-summary.log 2>&1 &
fuzz_job=$!
trap 'kill -- "-$fuzz_job" 2>/dev/null; exit 130' INT TERM
if [[ "${1:-}" == "--build" ]] && ! bash scripts/build.sh; then
  kill -- "-$fuzz_job" 2>/dev/null
  exit 1
fi

started=$SECONDS
(cd build/native && ctest --output-on-failure -j"$(nproc)") 2>&1 | tee build/ctest.log
if ((PIPESTATUS[0] == 0)); then
  summary+=("ctest: $(grep -E 'tests passed' build/ctest.log | tail -1) ($((SECONDS - started)) s)")
else
  status=1
  summary+=("ctest: FAILED: $(grep -E 'tests passed|\(Failed\)|\(Timeout\)|\*\*\*' build/ctest.log | tr '\n' ' ')")
fi

# The .npy reader's mutation fuzzer (one core, about 5 s) beside Vitest.
node tests/fuzz/fuzz_npy.mjs --runs 200000 > build/fuzz-npy.log 2>&1 &
npy_job=$!

# Vitest: the Node files and the Chromium files in two processes side by side (each runs its files
# one at a time), so both cores work; each writes its own report.
started=$SECONDS
# The tiny models both processes load, built first.
node --input-type=module -e 'import { ensureSpeculativePair, ensureTinyModel } from "./tests/support/tiny-model.js"; ensureTinyModel(); ensureSpeculativePair();'
rm -f build/vitest-node.json build/vitest-apart.json build/vitest-browser.json
# The docs' transformers snippets and the CLI's decoding, Node files that spend their time in child
# processes or threads, and the API reference's check run with the browser files so that the two
# processes take about as long (a fresh clone on 2026-12-07, with the size fuzz apart: 242 s of
# Node files against 227 s of browser files, before the Worker engine's file moved across).
beside_browser=(tests/node/cli-decode.test.ts tests/node/transformers-readme.test.ts tests/node/api-docs.test.ts tests/node/worker-engine.test.ts)
# The Node files share one process too (--no-isolate: vitest's and the package's modules imported
# once, not per file; 158 → 146 s alone); a file that changes a global puts it back.
# The size fuzz, the longest Node file, runs in a third process: the Node files keep one core busy
# throughout, the browser files only part of the time (they wait on pages and timers), and the
# third takes the idle part (a fresh clone on 2026-12-07: Node files 251 s, browser files 241 s,
# 18 % of the run's core-time idle).
apart=(tests/node/fuzz-sizes.test.ts)
npx vitest run tests/node "${beside_browser[@]/#/--exclude=}" "${apart[@]/#/--exclude=}" --no-isolate --reporter=default --reporter=json --outputFile=build/vitest-node.json > build/vitest-node.log 2>&1 &
node_suite=$!
npx vitest run "${apart[@]}" --reporter=default --reporter=json --outputFile=build/vitest-apart.json > build/vitest-apart.log 2>&1 &
apart_suite=$!
# The browser files share their support modules (Vite, playwright): imported once, not per file.
npx vitest run tests/browser "${beside_browser[@]}" --no-isolate --reporter=default --reporter=json --outputFile=build/vitest-browser.json || status=1
wait $node_suite || status=1
wait $apart_suite || status=1
cat build/vitest-node.log build/vitest-apart.log

wait $npy_job
npy_status=$?
wait $fuzz_job
fuzz_status=$?
cat build/fuzz-summary.log build/fuzz-npy.log
if ((fuzz_status == 0 && npy_status == 0)); then
  summary+=("fuzz: every target passed ($((SECONDS - fuzz_started)) s after it started, beside the rest)")
else
  status=1
  summary+=("fuzz: FAILED: $(grep -hE 'CRASH|crashes again|Error' build/fuzz-summary.log build/fuzz-npy.log | tr '\n' ' ')")
fi
summary+=("$(node -e '
  const reports = ["node", "apart", "browser"].map((suite) => { try { return require(`./build/vitest-${suite}.json`); } catch { return undefined; } });
  if (reports.includes(undefined)) { console.log("vitest: a suite wrote no report"); process.exit(); }
  const failed = reports.flatMap((r) => r.testResults.flatMap((f) => f.assertionResults.filter((a) => a.status === "failed").map((a) => a.fullName)));
  const passed = reports.reduce((n, r) => n + r.numPassedTests, 0);
  console.log(`vitest: ${passed} passed, ${failed.length} failed${failed.length ? ": " + failed.join("; ") : ""}`);
') ($((SECONDS - started)) s)")

printf '%s\n' "${summary[@]}"
exit $status
