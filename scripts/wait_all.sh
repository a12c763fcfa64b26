# Sourced (not run) by the scripts that run jobs side by side, one per core:
#   wait_all "WHAT" "WHERE TO LOOK" PID...
# waits for every job; if any failed, prints "WHAT failed (exit N); see WHERE TO LOOK" on stderr
# and exits with that status, so nothing after it runs on a half-finished result.
wait_all() {
  local what=$1 logs=$2 status=0 pid
  shift 2
  for pid in "$@"; do
    wait "$pid" || status=$?
  done
  if [ "$status" -ne 0 ]; then
    echo "$what failed (exit $status); see $logs" >&2
    exit "$status"
  fi
}
