#!/usr/bin/env bash
# Makes the base image infra/docker/Dockerfile starts FROM, locally, for machines with no route
# to a container registry: a Debian bookworm rootfs from Debian's debootstrap (--variant=minbase)
# plus Node.js from the npm registry (the `node-linux-<arch>` package ships the official binary)
# and npm, with the `node` user (uid/gid 1000) — the parts of the Docker Official Image
# `node:<major>-bookworm-slim` that the Dockerfile relies on. It is tagged with that image's full
# name, so the same Dockerfile builds from the registry's image elsewhere.
#
#   bash scripts/image-base.sh            # once: skipped while the image is in buildah's storage
#
# Needs root (debootstrap, `buildah mount`) and scripts/ensure-buildah.sh's packages.
# NODE_MAJOR (20), NPM_VERSION, DEBIAN_MIRROR and BASE_IMAGE override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_MAJOR="${NODE_MAJOR:-20}"
# The npm that Node.js 20's own releases bundle (https://nodejs.org/en/about/previous-releases),
# as the official image ships it.
NPM_VERSION="${NPM_VERSION:-10.8.2}"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
BASE_IMAGE="${BASE_IMAGE:-docker.io/library/node:${NODE_MAJOR}-bookworm-slim}"

if buildah inspect --type image "$BASE_IMAGE" >/dev/null 2>&1; then
  echo "base image $BASE_IMAGE is present"
  exit 0
fi

case "$(uname -m)" in
  x86_64) node_arch=x64 ;;
  aarch64) node_arch=arm64 ;;
  *) echo "no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac

started=$(date +%s)
work="$(mktemp -d)"
ctr=""
cleanup() {
  if [ -n "$ctr" ]; then buildah rm "$ctr" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Node.js and npm first: a registry failure ends the script before the slow part.
(cd "$work" && npm pack --silent "node-linux-${node_arch}@${NODE_MAJOR}" "npm@${NPM_VERSION}" >packed)
node_tgz="$work/$(grep '^node-linux' "$work/packed")"
npm_tgz="$work/$(grep '^npm-' "$work/packed")"
node_version="${node_tgz##*-}"
node_version="${node_version%.tgz}"

ctr=$(buildah from --pull=never scratch)
root=$(buildah mount "$ctr")
debootstrap --variant=minbase bookworm "$root" "$DEBIAN_MIRROR" >"$work/debootstrap.log" 2>&1 || {
  tail -30 "$work/debootstrap.log" >&2
  exit 1
}

# The release's security and stable updates, as the official Debian images carry them.
rm -f "$root/etc/apt/sources.list"
cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: ${DEBIAN_MIRROR}
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${DEBIAN_MIRROR}-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
run() { buildah run --isolation chroot "$ctr" -- "$@"; }
run sh -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get upgrade -y -qq >/dev/null'

# Trimmed as Debian's "slim" images are: no package lists, caches, documentation or man pages
# (an image is rebuilt, not updated in place). The host's resolver and name debootstrap copied in
# are not the image's: the container runtime provides its own.
run sh -c 'apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/*.log \
  /usr/share/doc/* /usr/share/man/* /usr/share/info/*'
rm -f "$root/etc/resolv.conf" "$root/etc/hostname"

# Node.js in /usr/local like the official image: the binary, and npm with its npm/npx links.
tar -xzf "$node_tgz" -C "$work" package/bin/node
install -m 0755 "$work/package/bin/node" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules/npm"
tar -xzf "$npm_tgz" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
run groupadd --gid 1000 node
run useradd --uid 1000 --gid node --shell /bin/bash --create-home node
run sh -c 'node --version && npm --version' >/dev/null

buildah umount "$ctr" >/dev/null
buildah config \
  --env "NODE_VERSION=${node_version}" \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --cmd node \
  --label "org.opencontainers.image.description=Debian bookworm (debootstrap minbase) with Node.js ${node_version} and npm ${NPM_VERSION}, made by scripts/image-base.sh" \
  "$ctr"
buildah commit --quiet --rm "$ctr" "$BASE_IMAGE" >/dev/null
ctr=""
echo "base image $BASE_IMAGE: Node.js ${node_version}, npm ${NPM_VERSION}, made in $(($(date +%s) - started)) s"
