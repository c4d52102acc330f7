#!/usr/bin/env bash
# Installs Debian's chromium when it is missing (apt-get; with sudo when not root), for the
# dashboard's browser tests (playwright-core drives /usr/bin/chromium: Playwright's own browser
# downloads are not used).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
echo "chromium is missing: installing Debian's chromium package" >&2
. "$(dirname "$0")/lib/apt-install.sh"
# with its recommended packages (fonts among them), as the headless runs here were checked with
apt_install "install chromium yourself (apt-get install chromium)" chromium fonts-dejavu-core
[ -x /usr/bin/chromium ]
