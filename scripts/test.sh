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
  # In CI only, after the suite: the container image built with buildah and run (test/image;
  # docs/operations.md, "The container image") and the bench's quick run (it proves every phase
  # still runs; its figures are not read: bench/README.md). Side by side: the image build is
  # mostly one step on one core at a time (npm, tsc -b) and the quick bench mostly one process
  # start or one short window at a time, so together they take little more than the longer.
  # The bench's output is printed after the image test's, not interleaved with it (and stays in
  # bench/results/, which git ignores).
  mkdir -p bench/results
  bench_log=bench/results/ci-quick.log
  npm run bench -- --quick >"$bench_log" 2>&1 &
  bench=$!
  image_status=0
  npm run test:image || image_status=$?
  bench_status=0
  wait "$bench" || bench_status=$?
  cat "$bench_log"
  if [ "$image_status" -ne 0 ]; then exit "$image_status"; fi
  exit "$bench_status"
fi
