#!/usr/bin/env bash
# Installs Debian's redis-server when it is missing (apt-get; with sudo when not root).
# Petrel starts its own redis-server child; this only makes sure the binary exists.
set -euo pipefail
for c in redis-server /usr/bin/redis-server /usr/sbin/redis-server /usr/local/bin/redis-server; do
  if command -v "$c" >/dev/null 2>&1; then exit 0; fi
done
echo "redis-server is missing: installing Debian's redis-server package" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "not root and no sudo: install redis-server yourself (apt-get install redis-server) or set REDIS_URL" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends redis-server >/dev/null
# The package may start a system service on 6379; Petrel does not use it (it runs its own child).
command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ]
