# The test command's phases, timed, and the host's cargo that lints as it
# builds; sourced by scripts/test.sh (bash), not run.
#
# phase NAME CMD...  runs CMD and records NAME with its wall time (and
#                    whether it failed), keeping CMD's exit status;
#                    record_phase records one timed elsewhere.
# print_phases       one line a recorded phase and the total, on stderr:
#                    scripts/test.sh calls it on exit, failed or not, so
#                    every run says where its time went.
# host_cargo ARGS... cargo ARGS with clippy-driver as the workspace wrapper
#                    and warnings denied: the workspace's crates are linted
#                    while they compile, the dependencies compiled once.

test_started=$(date +%s)
phase_lines=()

phase() {
  local name=$1 started status=0
  shift
  started=$(date +%s)
  "$@" || status=$?
  record_phase "$name" "$(($(date +%s) - started))" "$status"
  return "$status"
}

# record_phase NAME SECONDS STATUS: a phase timed elsewhere (one that ran in
# the background).
record_phase() {
  local outcome=""
  [ "$3" = 0 ] || outcome=" (failed, exit $3)"
  phase_lines+=("$(printf '%5d s  %s%s' "$2" "$1" "$outcome")")
}

print_phases() {
  local line
  {
    echo "test.sh: where the time went:"
    for line in "${phase_lines[@]}"; do
      echo "phase $line"
    done
    printf 'phase %5d s  total\n' "$(($(date +%s) - test_started))"
  } >&2
}

host_cargo() {
  local driver
  driver="$(rustc --print sysroot)/bin/clippy-driver"
  if [ ! -x "$driver" ]; then
    echo "error: $driver is missing: install clippy with 'rustup component add clippy'" >&2
    return 1
  fi
  # CLIPPY_ARGS is what `cargo clippy -- -D warnings` hands clippy-driver.
  RUSTC_WORKSPACE_WRAPPER="$driver" CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" \
    cargo "$@"
}
