#!/usr/bin/env bash
# Installs Debian's prometheus package when promtool is missing (apt-get; with sudo when not
# root), for the test that checks infra/prometheus with `promtool check config`, `check rules`
# and `test rules`. Only the promtool binary is used: the package's own Prometheus service is
# not needed (a container without an init system does not start it).
set -euo pipefail
for c in promtool /usr/bin/promtool; do
  if command -v "$c" >/dev/null 2>&1; then exit 0; fi
done
echo "promtool is missing: installing Debian's prometheus package" >&2
. "$(dirname "$0")/lib/apt-install.sh"
apt_install "install promtool yourself (apt-get install prometheus)" \
  --no-install-recommends prometheus
command -v promtool >/dev/null 2>&1 || [ -x /usr/bin/promtool ]
