#!/usr/bin/env bash
# Fuzzes every entry point that takes outside data: libFuzzer targets built with clang,
# AddressSanitizer and UndefinedBehaviorSanitizer (tests/fuzz/fuzz_*.cpp), and the .npy reader in
# Node (tests/fuzz/fuzz_npy.mjs). Each first replays every input that ever crashed it
# (tests/fuzz/regressions/<target>/).
#   scripts/fuzz.sh [SECONDS]  explores for SECONDS per target (default 60) from its seeds and the
#                              corpus it has grown in build/fuzz/corpus (`npm run fuzz`);
#   scripts/fuzz.sh --smoke    replays the committed seeds and regressions only (libFuzzer's mutations
#                              are not reproducible run to run, even seeded, so they stay out of
#                              `npm test`, which must not pass or fail by chance); the .npy reader's
#                              fuzzer, seeded and pure, runs a fixed 200,000 mutations.
#   scripts/fuzz.sh --smoke --no-npy
#                              the libFuzzer targets only: they need the core's sources, not the
#                              built package, so `npm test` replays them while it builds.
# A new crash is saved as a regression input and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
smoke=false
npy=true
seconds=60
for argument in "$@"; do
  case $argument in
    --smoke) smoke=true ;;
    --no-npy) npy=false ;;
    *) seconds=$argument ;;
  esac
done

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
    # The regressions were replayed above; the seeds now.
    mapfile -t inputs < <(compgen -G "tests/fuzz/seeds/$target/*" || true)
    if ((${#inputs[@]})) && ! build/fuzz/$target "${inputs[@]}" >build/fuzz/$target.log 2>&1; then
      echo "$target: a seed input crashes it (build/fuzz/$target.log)"
      status=1
    else
      echo "$target: $(compgen -G "$regressions/*" | wc -l) regression and ${#inputs[@]} seed inputs replayed, no crash"
    fi
    continue
  fi
  corpus=build/fuzz/corpus/$target
  mkdir -p "$corpus"
  if build/fuzz/$target -seed=1 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
       -artifact_prefix="$regressions/" "$corpus" "${seeds[@]}" "$regressions" >build/fuzz/$target.log 2>&1; then
    echo "$target: $(grep -o 'stat::number_of_executed_units: [0-9]*' build/fuzz/$target.log | grep -o '[0-9]*$') executions in ${seconds} s, no crash"
  else
    echo "$target: CRASH, input saved in $regressions/ (build/fuzz/$target.log):"
    grep -E 'ERROR|runtime error|SUMMARY' build/fuzz/$target.log | head -3
    status=1
  fi
done
if $npy; then
  if $smoke; then node tests/fuzz/fuzz_npy.mjs --runs 200000 || status=1
  else node tests/fuzz/fuzz_npy.mjs "$seconds" || status=1; fi
fi
exit $status
