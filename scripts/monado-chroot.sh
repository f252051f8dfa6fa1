#!/bin/sh
# Prepares (once) and uses a Debian trixie chroot holding Monado, the OpenXR
# loader, lavapipe and the OpenXR/Vulkan validation layers, so holoterrain's
# OpenXR path can be tested against a real runtime on a Debian 12 machine.
#
# Usage:
#   scripts/monado-chroot.sh prepare
#       Build the chroot unless a complete one exists (marker file listing the
#       packages it holds). A chroot left half-built by an interrupted run is
#       removed and rebuilt; a complete one made before a package was added
#       here gets the missing packages installed.
#   scripts/monado-chroot.sh run [--mode simulated|remote|qwerty] [--bind DIR]... -- CMD [ARG]...
#       Mount proc and /dev into the chroot, bind each DIR at the same path
#       inside it, start monado-service in the chosen mode (see
#       scripts/monado/inside.sh), wait for its socket, run CMD inside, then
#       stop the service and unmount. Exits with CMD's status; SIGINT or
#       SIGTERM to this script is passed on to CMD as SIGTERM, so it can end
#       cleanly first. Runs are serialised with a lock, because the remote
#       driver's TCP port 4242 can be held by one service only.
#       --mode qwerty opens Monado's windows on the X server in $DISPLAY
#       (its socket directory /tmp/.X11-unix and a copy of $XAUTHORITY are
#       made visible inside).
#   scripts/monado-chroot.sh path
#       Print the chroot directory.
#
# Environment:
#   HOLOTERRAIN_MONADO_CHROOT  chroot directory (default /var/cache/holoterrain/monado-trixie)
#   HOLOTERRAIN_DEBIAN_MIRROR  Debian mirror (default http://deb.debian.org/debian)
set -eu

CHROOT_DIR=${HOLOTERRAIN_MONADO_CHROOT:-/var/cache/holoterrain/monado-trixie}
MIRROR=${HOLOTERRAIN_DEBIAN_MIRROR:-http://deb.debian.org/debian}
MARKER="$CHROOT_DIR/.holoterrain-complete"
LOCK_FILE="$CHROOT_DIR.lock"
SCRIPT_DIR=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
# libgl1 and libegl1: the OpenGL that Monado's debug window (--mode qwerty) draws with.
PACKAGES="monado-service libopenxr1-monado libopenxr-loader1 libopenxr-utils \
mesa-vulkan-drivers libvulkan1 vulkan-validationlayers openxr-layer-corevalidation \
libgl1 libegl1"

die() {
    echo "monado-chroot: $*" >&2
    exit 1
}

# prepare, missing_packages, mount_system and unmount_all, shared with the Wine chroot.
CHROOT_TOOL=monado-chroot
. "$SCRIPT_DIR/chroot-lib.sh"

# Waits for child $1 even when a trapped signal interrupts `wait`; returns its status.
wait_for() {
    while :; do
        waited_status=0
        wait "$1" || waited_status=$?
        kill -0 "$1" 2>/dev/null || return "$waited_status"
    done
}

# Removes what run put into the chroot and unmounts.
end_run() {
    [ -z "$xauthority_copy" ] || rm -f "$CHROOT_DIR$xauthority_copy"
    unmount_all
}

run() {
    mode=simulated
    binds=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --mode) mode=$2; shift 2 ;;
            --bind) binds="$binds $2"; shift 2 ;;
            --) shift; break ;;
            *) die "unknown option $1" ;;
        esac
    done
    [ $# -gt 0 ] || die "run needs a command after --"
    case "$mode" in simulated|remote|qwerty) ;; *) die "unknown mode $mode" ;; esac
    [ -f "$MARKER" ] || die "no complete chroot at $CHROOT_DIR: run '$0 prepare' first"
    missing=$(missing_packages)
    [ -z "$missing" ] || die "the chroot at $CHROOT_DIR lacks ${missing% }: run '$0 prepare' to add them"
    xauthority_copy=""
    if [ "$mode" = qwerty ]; then
        [ -n "${DISPLAY:-}" ] || die "--mode qwerty opens windows: set DISPLAY to an X server"
        if [ -d /tmp/.X11-unix ]; then
            binds="$binds /tmp/.X11-unix"
        fi
        if [ -f "${XAUTHORITY:-}" ]; then
            xauthority_copy=/tmp/holoterrain-xauthority.$$
        fi
    fi
    exec 9>"$LOCK_FILE"
    flock 9
    trap end_run EXIT
    trap 'exit 143' INT TERM
    mount_system
    for dir in $binds; do
        [ -d "$dir" ] || die "bind source $dir is not a directory"
        mkdir -p "$CHROOT_DIR$dir"
        mount --bind "$dir" "$CHROOT_DIR$dir"
    done
    if [ -n "$xauthority_copy" ]; then
        install -m 600 "$XAUTHORITY" "$CHROOT_DIR$xauthority_copy"
        export XAUTHORITY="$xauthority_copy"
    fi
    install -m 755 "$SCRIPT_DIR/monado/inside.sh" "$CHROOT_DIR/usr/local/bin/holoterrain-inside"
    # The command runs in the background so that a signal to this script can
    # be passed on; fd 3 keeps this script's stdin for it.
    exec 3<&0
    chroot "$CHROOT_DIR" /usr/local/bin/holoterrain-inside "$mode" "$@" <&3 3<&- &
    inside_pid=$!
    trap 'kill -TERM "$inside_pid" 2>/dev/null || true' INT TERM
    status=0
    wait_for "$inside_pid" || status=$?
    end_run
    trap - EXIT INT TERM
    exit "$status"
}

case "${1:-}" in
    prepare) prepare ;;
    run) shift; run "$@" ;;
    path) echo "$CHROOT_DIR" ;;
    *) die "usage: $0 prepare | run [--mode simulated|remote|qwerty] [--bind DIR]... -- CMD... | path" ;;
esac
