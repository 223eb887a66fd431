#!/usr/bin/env bash
# Fuzzes every entry point that takes outside data: libFuzzer targets built with clang,
# AddressSanitizer and UndefinedBehaviorSanitizer (tests/fuzz/fuzz_*.cpp), and the .npy reader in
# Node (tests/fuzz/fuzz_npy.mjs). Each first replays every input that ever crashed it
# (tests/fuzz/regressions/<target>/).
#   scripts/fuzz.sh [SECONDS]  explores for SECONDS per target (default 60) from its seeds and the
#                              corpus it has grown in build/fuzz/corpus (`npm run fuzz`);
#   scripts/fuzz.sh --smoke    a fixed number of mutations per target from the committed seeds and
#                              regressions only, with a fixed seed: the same inputs on every machine
#                              and every run, so `npm test` cannot pass or fail by chance.
# A new crash is saved as a regression input and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
smoke=false
seconds=60
if [[ "${1:-}" == "--smoke" ]]; then smoke=true; else seconds=${1:-60}; fi

# Mutations per target in the smoke pass: about 5 s each here.
declare -A SMOKE_RUNS=([fuzz_sampling]=80000 [fuzz_samplers]=2000 [fuzz_distances]=60000
                       [fuzz_experiments]=16000 [fuzz_decoding]=16000 [fuzz_json]=60000)

if [[ ! -f build/fuzz/CMakeCache.txt ]]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSAMPLING_LAB_FUZZ=ON >/dev/null
fi
cmake --build build/fuzz -j"$(nproc)" >/dev/null

status=0
for target in fuzz_sampling fuzz_samplers fuzz_distances fuzz_experiments fuzz_decoding fuzz_json; do
  regressions=tests/fuzz/regressions/$target
  mkdir -p "$regressions"
  if compgen -G "$regressions/*" >/dev/null && ! build/fuzz/$target "$regressions"/* >build/fuzz/$target.log 2>&1; then
    echo "$target: a regression input crashes again (build/fuzz/$target.log)"
    status=1
    continue
  fi
  seeds=()
  [[ -d tests/fuzz/seeds/$target ]] && seeds=(tests/fuzz/seeds/$target)
  if $smoke; then
    # New inputs go to a scratch folder, so the next smoke pass starts from the same corpus.
    corpus=$(mktemp -d)
    budget=(-runs="${SMOKE_RUNS[$target]}")
    what="mutations"
  else
    corpus=build/fuzz/corpus/$target
    mkdir -p "$corpus"
    budget=(-max_total_time="$seconds")
    what="executions in ${seconds} s"
  fi
  if build/fuzz/$target -seed=1 "${budget[@]}" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
       -artifact_prefix="$regressions/" "$corpus" "${seeds[@]}" "$regressions" >build/fuzz/$target.log 2>&1; then
    echo "$target: $(grep -o 'stat::number_of_executed_units: [0-9]*' build/fuzz/$target.log | grep -o '[0-9]*$') $what, no crash"
  else
    echo "$target: CRASH, input saved in $regressions/ (build/fuzz/$target.log):"
    grep -E 'ERROR|runtime error|SUMMARY' build/fuzz/$target.log | head -3
    status=1
  fi
  if $smoke; then rm -rf "$corpus"; fi
done
if $smoke; then node tests/fuzz/fuzz_npy.mjs --runs 200000 || status=1
else node tests/fuzz/fuzz_npy.mjs "$seconds" || status=1; fi
exit $status
