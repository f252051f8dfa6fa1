#!/bin/sh
# Prepares (once) and uses a Debian trixie chroot holding Monado, the OpenXR
# loader, lavapipe and the OpenXR/Vulkan validation layers, so holoterrain's
# OpenXR path can be tested against a real runtime on a Debian 12 machine.
#
# Usage:
#   scripts/monado-chroot.sh prepare
#       Build the chroot unless a complete one exists (marker file). A chroot
#       left half-built by an interrupted run is removed and rebuilt.
#   scripts/monado-chroot.sh run [--mode simulated|remote] [--bind DIR]... -- CMD [ARG]...
#       Mount proc and /dev into the chroot, bind each DIR at the same path
#       inside it, start monado-service in the chosen mode ,
#       wait for its socket, run CMD inside, then stop the service and unmount.
#       Exits with CMD's status. Runs are serialised with a lock, because the
#       remote driver's TCP port 4242 can be held by one service only.
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
PACKAGES="monado-service libopenxr1-monado libopenxr-loader1 libopenxr-utils \
mesa-vulkan-drivers libvulkan1 vulkan-validationlayers openxr-layer-corevalidation"

die() {
    echo "monado-chroot: $*" >&2
    exit 1
}

# prepare, mount_system and unmount_all, shared with the Wine chroot.
CHROOT_TOOL=monado-chroot
. "$SCRIPT_DIR/chroot-lib.sh"

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
    case "$mode" in simulated|remote) ;; *) die "unknown mode $mode" ;; esac
    [ -f "$MARKER" ] || die "no complete chroot at $CHROOT_DIR: run '$0 prepare' first"
    exec 9>"$LOCK_FILE"
    flock 9
    trap unmount_all EXIT INT TERM
    mount_system
    for dir in $binds; do
        [ -d "$dir" ] || die "bind source $dir is not a directory"
        mkdir -p "$CHROOT_DIR$dir"
        mount --bind "$dir" "$CHROOT_DIR$dir"
    done
    install -m 755 "$SCRIPT_DIR/monado/inside.sh" "$CHROOT_DIR/usr/local/bin/holoterrain-inside"
    status=0
    chroot "$CHROOT_DIR" /usr/local/bin/holoterrain-inside "$mode" "$@" || status=$?
    unmount_all
    trap - EXIT INT TERM
    exit "$status"
}

case "${1:-}" in
    prepare) prepare ;;
    run) shift; run "$@" ;;
    path) echo "$CHROOT_DIR" ;;
    *) die "usage: $0 prepare | run [--mode simulated|remote] [--bind DIR]... -- CMD... | path" ;;
esac
