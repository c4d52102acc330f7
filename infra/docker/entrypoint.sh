#!/bin/sh
# The image's entrypoint: the first argument names the Petrel app to run. `exec` makes Node the
# container's main process, so SIGTERM reaches its graceful shutdown (stop taking work, finish
# in-flight requests and jobs, close Redis).
set -eu
app="${1:-api}"
[ "$#" -gt 0 ] && shift
case "$app" in
  api | worker | scheduler | webhooks | smtp | petrel)
    exec node "apps/$app/dist/main.js" "$@" ;;
  cli)
    exec node apps/petrel/dist/cli.js "$@" ;;
  *)
    # anything else runs as given (a shell, `node -e …`)
    exec "$app" "$@" ;;
esac
