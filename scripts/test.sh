#!/usr/bin/env bash
# Quick-start command 2 (and CI): install what is missing, build, lint, typecheck, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-redis.sh
bash scripts/ensure-chromium.sh
bash scripts/ensure-promtool.sh
bash scripts/ensure-deps.sh
# lint and typecheck are single-threaded and independent: side by side on two cores
npm run lint &
lint=$!
npm run typecheck &
typecheck=$!
wait "$lint"
wait "$typecheck"
npx vitest run "$@"
if [ "${CI:-}" = "true" ]; then
  # The container image built with buildah and run (test/image): minutes of both cores, so in
  # CI only, after the suite (docs/operations.md, "The container image").
  npm run test:image
  npm run bench -- --quick
fi
