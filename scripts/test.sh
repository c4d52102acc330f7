#!/usr/bin/env bash
# Quick-start command 2 (and CI): install what is missing, build, lint, typecheck, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-redis.sh
bash scripts/ensure-chromium.sh
bash scripts/ensure-promtool.sh
bash scripts/ensure-deps.sh
npm run lint
npm run typecheck
npx vitest run "$@"
if [ "${CI:-}" = "true" ]; then
  # The container image built with buildah and run (test/image): minutes of both cores, so in
  # CI only, after the suite (docs/operations.md, "The container image").
  npm run test:image
  npm run bench -- --quick
fi
