#!/usr/bin/env bash
# Installs npm dependencies when missing or older than package-lock.json, then builds.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
npm run build
