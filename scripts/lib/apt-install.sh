# Sourced by the ensure-*.sh scripts: `apt_install "<what to do by hand>" <apt-get install args…>`
# installs Debian packages non-interactively, as root or through sudo, and fails with the hint
# when neither is possible.
apt_install() {
  local hint="$1"
  shift
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "not root and no sudo: $hint" >&2
      return 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "$@" >/dev/null
}
