#!/usr/bin/env bash
# Installs Debian's buildah (builds and runs OCI images without a daemon) and debootstrap (makes
# the image's base rootfs, scripts/image-base.sh) when missing (apt-get; with sudo when not root),
# for `npm run test:image`.
set -euo pipefail
if command -v buildah >/dev/null 2>&1 && command -v debootstrap >/dev/null 2>&1; then exit 0; fi
echo "buildah or debootstrap is missing: installing Debian's packages" >&2
. "$(dirname "$0")/lib/apt-install.sh"
# buildah recommends crun/runc, fuse-overlayfs and slirp4netns; `--isolation chroot` needs none of
# them, so only what the package depends on comes along.
apt_install "install buildah and debootstrap yourself (apt-get install buildah debootstrap)" \
  --no-install-recommends buildah debootstrap
command -v buildah >/dev/null 2>&1 && command -v debootstrap >/dev/null 2>&1
