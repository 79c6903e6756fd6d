# Sourced by the container checks (image-check, compose-check, bare-check), from the project
# root:  . .ci/container-engine.sh <check name> [compose]
# Sets `engine` (docker where a daemon answers, else podman through ../shared/tools/ when it is
# there), `compose` (docker compose, or compose-here) and `kind`, and defines `fail`. With no
# engine it says why the check skips and exits 0. With `compose`, docker counts only when its
# compose plugin answers too. With CONTAINER_PROBE set it only tells, by its exit code, whether
# there is an engine (0) or not (1): .ci/run sources it so, in a subshell.
check="$1"
tools="$(cd .. && pwd)/shared/tools"
if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1 \
  && { [ "${2:-}" != compose ] || docker compose version >/dev/null 2>&1; }; then
  engine=(docker)
  compose=(docker compose)
  kind=docker
elif [ -x "$tools/podman-here" ] && [ -f "$tools/container-env.sh" ]; then
  echo "$check: no docker daemon; podman through $tools"
  bash "$tools/container-env.sh" . >/dev/null
  engine=("$tools/podman-here")
  compose=("$tools/compose-here")
  kind=podman
else
  [ -z "${CONTAINER_PROBE:-}" ] || exit 1
  echo "$check: skipped: no docker daemon answers and $tools (podman) is not there"
  exit 0
fi
[ -z "${CONTAINER_PROBE:-}" ] || exit 0

fail() {
  echo "$check: FAIL: $*" >&2
  exit 1
}
