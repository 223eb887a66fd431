#!/usr/bin/env bash
# Installs the npm packages of package-lock.json, only when the lock file changed since the last
# install (scripts/setup.sh, and scripts/build.sh beside its compiles).
set -euo pipefail
cd "$(dirname "$0")/.."

stamp=node_modules/.setup-lock-hash
lock_hash=$(sha1sum package-lock.json | cut -d' ' -f1)
if [[ ! -f $stamp || "$(cat "$stamp")" != "$lock_hash" ]]; then
  echo "setup: npm ci"
  # onnxruntime-node's install script would download GPU providers; its CPU build ships in the package.
  ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_hash" > "$stamp"
fi
