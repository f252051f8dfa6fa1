#!/usr/bin/env bash
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
#   scripts/monado-chroot.sh run [--mode simulated|remote|qwerty] [--bind DIR]... [--bind-ro DIR]... -- CMD [ARG]...
#       Mount proc and /dev into the chroot, bind each DIR at the same path
#       inside it (a path may hold spaces), start monado-service in the chosen
#       mode (see scripts/monado/inside.sh), wait for its socket, run CMD
#       inside, then stop the service and unmount. Exits with CMD's status;
#       SIGINT or SIGTERM to this script is passed on to CMD as SIGTERM, so
#       it can end cleanly first. Runs are serialised with a lock, because the
#       remote driver's TCP port 4242 can be held by one service only.
#       --mode qwerty opens Monado's windows on the X server in $DISPLAY
#       (its socket directory /tmp/.X11-unix and a copy of $XAUTHORITY are
#       made visible inside).
#   scripts/monado-chroot.sh path
#       Print the chroot directory.
#   scripts/monado-chroot.sh mirror
#       Print the Debian mirror a new chroot is built from.
#
# Environment:
#   HOLOTERRAIN_MONADO_CHROOT  chroot directory (default /var/cache/holoterrain/monado-trixie)
#   HOLOTERRAIN_DEBIAN_MIRROR  Debian mirror (default: the first Debian archive
#                              in the host's apt sources, else http://deb.debian.org/debian)
#   HOLOTERRAIN_APT_DIR        where the host's apt sources are (default /etc/apt)
set -euo pipefail

CHROOT_DIR=${HOLOTERRAIN_MONADO_CHROOT:-/var/cache/holoterrain/monado-trixie}
MARKER="$CHROOT_DIR/.holoterrain-complete"
LOCK_FILE="$CHROOT_DIR.lock"
SCRIPT_DIR=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
# libgl1 and libegl1: the OpenGL that Monado's debug window (--mode qwerty) draws with.
PACKAGES="monado-service libopenxr1-monado libopenxr-loader1 libopenxr-utils \
mesa-vulkan-drivers libvulkan1 vulkan-validationlayers openxr-layer-corevalidation \
libgl1 libegl1"
# Where run puts the scripts it runs inside, in the same layout as scripts/.
INSIDE_DIR=/usr/local/lib/holoterrain

die() {
    echo "monado-chroot: $*" >&2
    exit 1
}

CHROOT_TOOL=monado-chroot
# shellcheck source=scripts/chroot-lib.sh
. "$SCRIPT_DIR/chroot-lib.sh"

# run's own option: --mode simulated|remote|qwerty.
run_option() {
    [ "$1" = --mode ] && [ $# -ge 2 ] || return 1
    mode=$2
    OPTION_WORDS=2
}

# Removes what run put into the chroot and unmounts.
end_run() {
    [ -z "$xauthority_copy" ] || rm -f "$CHROOT_DIR$xauthority_copy"
    unmount_below "$CHROOT_DIR"
}

run() {
    mode=simulated
    parse_run_options "$@"
    case "$mode" in simulated|remote|qwerty) ;; *) die "unknown mode $mode" ;; esac
    [ -f "$MARKER" ] || die "no complete chroot at $CHROOT_DIR: run '$0 prepare' first"
    missing=$(missing_packages)
    [ -z "$missing" ] || die "the chroot at $CHROOT_DIR lacks ${missing% }: run '$0 prepare' to add them"
    xauthority_copy=""
    if [ "$mode" = qwerty ]; then
        [ -n "${DISPLAY:-}" ] || die "--mode qwerty opens windows: set DISPLAY to an X server"
        if [ -d /tmp/.X11-unix ]; then
            BINDS+=(/tmp/.X11-unix)
        fi
        if [ -f "${XAUTHORITY:-}" ]; then
            xauthority_copy=/tmp/holoterrain-xauthority.$$
        fi
    fi
    exec 9>"$LOCK_FILE"
    flock 9
    trap end_run EXIT
    # A signal before the command runs still cleans up.
    trap 'exit 143' INT TERM
    mount_system "$CHROOT_DIR"
    bind_dirs "$CHROOT_DIR"
    if [ -n "$xauthority_copy" ]; then
        install -m 600 "$XAUTHORITY" "$CHROOT_DIR$xauthority_copy"
        export XAUTHORITY="$xauthority_copy"
    fi
    install -D -m 644 "$SCRIPT_DIR/chroot-lib.sh" "$CHROOT_DIR$INSIDE_DIR/chroot-lib.sh"
    install -D -m 755 "$SCRIPT_DIR/monado/inside.sh" "$CHROOT_DIR$INSIDE_DIR/monado/inside.sh"
    status=0
    run_passing_signals chroot "$CHROOT_DIR" "$INSIDE_DIR/monado/inside.sh" "$mode" "${RUN_COMMAND[@]}" \
        || status=$?
    exit "$status"
}

case "${1:-}" in
    prepare) prepare ;;
    run) shift; run "$@" ;;
    path) echo "$CHROOT_DIR" ;;
    mirror) debian_mirror ;;
    *) die "usage: $0 prepare | run [--mode simulated|remote|qwerty] [--bind DIR]... [--bind-ro DIR]... -- CMD... | path | mirror" ;;
esac
