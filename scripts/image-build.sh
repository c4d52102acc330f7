#!/usr/bin/env bash
# Builds infra/docker/Dockerfile with Debian's buildah, daemonless, on a machine with no Docker
# engine and no route to a container registry (the base image is made locally first:
# scripts/image-base.sh). `npm run test:image` builds through it; an operator with Docker or
# Podman follows docs/operations.md instead.
#
#   bash scripts/image-build.sh [tag]      # default tag: localhost/petrel:dev
#
# Needs root. The flags are what builds here, in a sandbox without user namespaces or cgroup
# delegation: `--isolation chroot` runs each RUN step in a chroot (no OCI runtime, no network
# namespace: the host's network), and the ulimits stay below the hard limits this sandbox
# grants (buildah's default nproc of 32768 is refused where the hard limit is lower).
# `--format docker` keeps the HEALTHCHECK (the OCI image format has no field for it);
# `--ignorefile` because Buildah 1.28 does not read an ignore file named after the Dockerfile,
# as BuildKit does; `--layers` caches each step, as `docker build` does (`--force-rm`: a failed
# step leaves no working container behind).
set -euo pipefail
cd "$(dirname "$0")/.."
tag="${1:-localhost/petrel:dev}"

bash scripts/ensure-buildah.sh
bash scripts/image-base.sh

# The CA bundle the host's npm trusts (a TLS-intercepting proxy's CA among them, where there is
# one) goes to the install step as a build secret: the image never holds it.
secret=()
cafile="$(npm config get cafile 2>/dev/null || true)"
if [ -n "$cafile" ] && [ "$cafile" != "null" ] && [ -s "$cafile" ]; then
  secret=(--secret "id=npm_ca,src=$cafile")
fi

started=$(date +%s)
buildah build \
  "${secret[@]}" \
  --isolation chroot \
  --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
  --format docker \
  --layers --force-rm \
  --pull=never \
  --ignorefile infra/docker/Dockerfile.dockerignore \
  -f infra/docker/Dockerfile \
  -t "$tag" \
  .
echo "image $tag built in $(($(date +%s) - started)) s"
