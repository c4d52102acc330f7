#!/usr/bin/env bash
# Quick-start command 1: install what is missing, build, and start Petrel (all-in-one).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-redis.sh
bash scripts/ensure-deps.sh
exec npm start
