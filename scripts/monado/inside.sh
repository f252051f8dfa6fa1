#!/usr/bin/env bash
# Runs inside the Monado chroot (installed there by monado-chroot.sh run,
# beside chroot-lib.sh as in scripts/), or directly on a machine with
# monado-service (scripts/desktop-sim.sh):
# starts monado-service in the given mode, waits for its IPC socket, runs the
# command, then stops the service. Exits with the command's status; SIGINT or
# SIGTERM to this script is passed on to the command as SIGTERM.
#
# Usage: inside.sh simulated|remote|qwerty CMD [ARG]...
#   simulated  a simulated HMD, no window (null compositor)
#   remote     HMD and controllers driven over TCP 4242, no window
#   qwerty     keyboard-and-mouse HMD and controllers; opens the compositor
#              window "Monado" and the debug window "Monado! ..." (which takes
#              the keys) on the X server in $DISPLAY
# With HOLOTERRAIN_MONADO_PID_FILE set, the service's process id is written
# there (a test kills it to play a runtime crash).
set -eu

die() {
    echo "holoterrain-inside: $*" >&2
    exit 1
}

# run_passing_signals, shared with the chroot scripts.
# shellcheck source=scripts/chroot-lib.sh
. "$(dirname -- "$0")/../chroot-lib.sh"

mode=$1
shift
case "$mode" in
    simulated) export SIMULATED_ENABLE=1 ;;
    remote) export P_OVERRIDE_ACTIVE_CONFIG=remote ;;
    qwerty) export QWERTY_ENABLE=1 XRT_DEBUG_GUI=1 XRT_COMPOSITOR_FORCE_XCB=1 ;;
    *) die "unknown mode $mode" ;;
esac

XDG_RUNTIME_DIR=$(mktemp -d /tmp/holoterrain-xdg.XXXXXX)
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR
if [ "$mode" != qwerty ]; then
    # No window and no GPU: Monado's null compositor paces frames itself.
    export XRT_COMPOSITOR_NULL=1
fi
service_log="$XDG_RUNTIME_DIR/monado-service.log"

# monado-service epolls stdin, which must be a pipe (/dev/null is refused):
# give it a FIFO whose write end this shell holds open until teardown.
mkfifo "$XDG_RUNTIME_DIR/service-stdin"
monado-service <"$XDG_RUNTIME_DIR/service-stdin" >"$service_log" 2>&1 &
service_pid=$!
if [ -n "${HOLOTERRAIN_MONADO_PID_FILE:-}" ]; then
    echo "$service_pid" >"$HOLOTERRAIN_MONADO_PID_FILE"
fi
exec 8>"$XDG_RUNTIME_DIR/service-stdin"

stop_service() {
    # A line on its stdin is monado-service's own request to shut down; the
    # qwerty mode needs it, because there its SDL window turns SIGTERM into
    # a mere close event. (No SIGPIPE if the service is already gone.)
    trap '' PIPE
    echo >&8 2>/dev/null || true
    kill "$service_pid" 2>/dev/null || true
    wait "$service_pid" 2>/dev/null || true
    exec 8>&-
    rm -rf "$XDG_RUNTIME_DIR"
}
trap stop_service EXIT

socket="$XDG_RUNTIME_DIR/monado_comp_ipc"
waited=0
while [ ! -S "$socket" ]; do
    if ! kill -0 "$service_pid" 2>/dev/null; then
        echo "holoterrain-inside: monado-service exited early; its log:" >&2
        cat "$service_log" >&2
        exit 1
    fi
    if [ "$waited" -ge 200 ]; then
        echo "holoterrain-inside: no Monado socket after 20 s; its log:" >&2
        cat "$service_log" >&2
        exit 1
    fi
    sleep 0.1
    waited=$((waited + 1))
done

status=0
run_passing_signals "$@" || status=$?
if [ -n "${HOLOTERRAIN_SHOW_MONADO_LOG:-}" ]; then
    cat "$service_log" >&2
fi
exit "$status"
