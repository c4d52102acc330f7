#!/usr/bin/env bash
# Installs Debian's redis-server when it is missing (apt-get; with sudo when not root).
# Petrel starts its own redis-server child; this only makes sure the binary exists.
set -euo pipefail
for c in redis-server /usr/bin/redis-server /usr/sbin/redis-server /usr/local/bin/redis-server; do
  if command -v "$c" >/dev/null 2>&1; then exit 0; fi
done
echo "redis-server is missing: installing Debian's redis-server package" >&2
. "$(dirname "$0")/lib/apt-install.sh"
apt_install "install redis-server yourself (apt-get install redis-server) or set REDIS_URL" \
  --no-install-recommends redis-server
# The package may start a system service on 6379; Petrel does not use it (it runs its own child).
command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ]
