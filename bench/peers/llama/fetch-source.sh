#!/usr/bin/env bash
# Extracts the part of llama.cpp that its sampler needs from the npm package node-llama-cpp,
# which ships llama.cpp's source as a git bundle (llama/gitRelease.bundle in its tarball), into
# build/peers/llama/src. Nothing is vendored into this repository; `npm pack` is served from the
# npm cache when the tarball was fetched once. Usage: fetch-source.sh [OUT_DIR]
set -euo pipefail

VERSION=3.21.1   # node-llama-cpp; its llama/llama.cpp.info.json names the llama.cpp release
root="$(cd "$(dirname "$0")/../../.." && pwd)"
out="${1:-$root/build/peers/llama/src}"
# Extracted again whenever this script (version, list of paths) changes.
stamp="$out/.stamp-$(sha1sum "$0" | cut -c1-12)"
[ -f "$stamp" ] && exit 0

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "node-llama-cpp@$VERSION" >/dev/null)
tar -xzf "$work/node-llama-cpp-$VERSION.tgz" -C "$work" package/llama/gitRelease.bundle package/llama/llama.cpp.info.json

git init -q --bare "$work/repo"
git -C "$work/repo" fetch -q "$work/package/llama/gitRelease.bundle" HEAD

# The sampler (src/llama-sampler.*), what it includes, llama-impl.cpp (logging, format, time_meas)
# and ggml-base, whose graph functions only the backend-sampling hooks call; vocab, grammar and
# context are stubbed in bench/peers/llama/stubs.cpp.
paths=(
  LICENSE include/llama.h
  src/llama-sampler.cpp src/llama-sampler.h src/llama-impl.cpp src/llama-impl.h
  src/llama-vocab.h src/llama-grammar.h
  ggml/include ggml/src/ggml-version.h.in ggml/src/ggml-impl.h ggml/src/ggml-common.h
  ggml/src/ggml-backend-impl.h ggml/src/ggml-threading.h ggml/src/ggml-quants.h
  ggml/src/ggml-cpu/ggml-cpu-impl.h
  ggml/src/ggml.c ggml/src/ggml.cpp ggml/src/ggml-alloc.c ggml/src/ggml-backend.cpp
  ggml/src/ggml-backend-meta.cpp ggml/src/ggml-opt.cpp ggml/src/ggml-threading.cpp
  ggml/src/ggml-quants.c ggml/src/gguf.cpp
)
rm -rf "$out"
mkdir -p "$out"
git -C "$work/repo" archive FETCH_HEAD "${paths[@]}" | tar -x -C "$out"
cp "$work/package/llama/llama.cpp.info.json" "$out/"
git -C "$work/repo" rev-parse FETCH_HEAD > "$out/BUNDLE_COMMIT"
touch "$stamp"
