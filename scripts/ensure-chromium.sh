#!/usr/bin/env bash
# Installs Debian's chromium when it is missing (apt-get; with sudo when not root), for the
# dashboard's browser tests (playwright-core drives /usr/bin/chromium: Playwright's own browser
# downloads are not used).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
echo "chromium is missing: installing Debian's chromium package" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "not root and no sudo: install chromium yourself (apt-get install chromium)" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# with its recommended packages (fonts among them), as the headless runs here were checked with
$SUDO apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
[ -x /usr/bin/chromium ]
