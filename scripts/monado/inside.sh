#!/bin/sh
# Runs inside the Monado chroot (installed there by monado-chroot.sh run):
# starts monado-service in the given mode, waits for its IPC socket, runs the
# command, then stops the service. Exits with the command's status.
#
# Usage: holoterrain-inside simulated|remote CMD [ARG]...
# With HOLOTERRAIN_MONADO_PID_FILE set, the service's process id is written
# there (a test kills it to play a runtime crash).
set -eu

mode=$1
shift
case "$mode" in
    simulated) export SIMULATED_ENABLE=1 ;;
    remote) export P_OVERRIDE_ACTIVE_CONFIG=remote ;;
    *) echo "holoterrain-inside: unknown mode $mode" >&2; exit 2 ;;
esac

XDG_RUNTIME_DIR=$(mktemp -d /tmp/holoterrain-xdg.XXXXXX)
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR
# No window and no GPU: Monado's null compositor paces frames itself.
export XRT_COMPOSITOR_NULL=1
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
"$@" || status=$?
if [ -n "${HOLOTERRAIN_SHOW_MONADO_LOG:-}" ]; then
    cat "$service_log" >&2
fi
exit "$status"
