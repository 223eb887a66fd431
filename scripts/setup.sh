#!/usr/bin/env bash
# Installs what building and testing need; a no-op in a few seconds when all is present.
# Usage: scripts/setup.sh [--browser] [--no-npm]   (--browser adds Chromium for the browser tests,
# and clang's sanitizer and libFuzzer runtime for the fuzz smoke pass, and a CJK font so screenshots
# show the page's Chinese as readers see it; --no-npm leaves the npm packages to scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make emscripten libboost-math-dev nlohmann-json3-dev
          libgtest-dev libgmock-dev libbenchmark-dev python3-onnx python3-numpy)
install_npm=true
for arg in "$@"; do
  case $arg in
    --browser) packages+=(chromium clang-14 libclang-rt-14-dev fonts-noto-cjk) ;;
    --no-npm) install_npm=false ;;
    *) echo "setup: unknown argument $arg" >&2; exit 2 ;;
  esac
done

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$pkg")
done
if ((${#missing[@]})); then
  if [[ $EUID -ne 0 ]]; then
    echo "setup: missing Debian packages; as root run:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# xsimd >= 11 has the WebAssembly back end; bookworm ships 8.1. Trixie's header-only package is
# unpacked into .deps/ without touching the system's package state.
xsimd_dir=.deps/xsimd
if [[ ! -f $xsimd_dir/usr/include/xsimd/arch/xsimd_wasm.hpp ]]; then
  echo "setup: fetching xsimd headers (Debian trixie libxsimd-dev) into $xsimd_dir"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
  mirror=$( (cat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null || true) \
           | grep -E '^(URIs:|deb )' | grep -oE 'https?://[^ ]+/debian/?( |$)' | head -n1 | tr -d ' ')
  mirror=${mirror:-http://deb.debian.org/debian}
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${mirror%/} trixie main" > "$work/sources.list"
  apt_opts=(-qq -o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
            -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" -o APT::Sandbox::User=root)
  apt-get "${apt_opts[@]}" update
  (cd "$work" && apt-get "${apt_opts[@]}" download libxsimd-dev)
  rm -rf "$xsimd_dir" && mkdir -p "$xsimd_dir"
  dpkg -x "$work"/libxsimd-dev_*.deb "$xsimd_dir"
fi

# em++ must not see /usr/include (glibc headers); these folders hold only the header-only libraries.
mkdir -p .deps/wasm-include
ln -sfn /usr/include/nlohmann .deps/wasm-include/nlohmann

# npm packages (scripts/build.sh installs them itself, beside its compiles: --no-npm).
if $install_npm; then bash scripts/npm-install.sh; fi
