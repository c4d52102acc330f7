#!/usr/bin/env bash
# Installs npm dependencies when missing or older than package-lock.json, then builds.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm install` rather than `npm ci`: the registry reachable here serves no other-platform
  # optional binaries (turbo, msgpackr-extract), so the lock cannot list them and `npm ci`
  # refuses it as out of sync. With a lock present, `npm install` installs exactly its versions.
  npm install --no-audit --no-fund
fi
npm run build
