#!/bin/sh
# Prepares (once) and uses a Debian trixie chroot holding Wine 10, lavapipe
# and Xvfb, so holoterrain.exe (scripts/build-windows.sh) can be run and
# tested on a Debian 12 machine, whose own Wine 8 cannot start it.
#
# Usage:
#   scripts/wine-chroot.sh prepare
#       Build the chroot and its Wine prefix unless a complete one exists
#       (marker file). A chroot left half-built by an interrupted run is
#       removed and rebuilt.
#   scripts/wine-chroot.sh run [--xvfb] [--bind DIR]... -- CMD [ARG]...
#       Mount proc and /dev into the chroot, bind each DIR at the same path
#       inside it, run CMD inside with the Wine prefix set up (`wine64 X.exe`
#       runs a Windows program; unix paths reach it through drive Z:), then
#       stop the Wine server and unmount. With --xvfb, CMD runs under
#       xvfb-run, with DISPLAY pointing at a fresh virtual X server (Wine's
#       Direct3D needs one; its Vulkan does not). Exits with CMD's status.
#       Runs are serialised with a lock, since each ends by unmounting.
#   scripts/wine-chroot.sh path
#       Print the chroot directory.
#
# Environment:
#   HOLOTERRAIN_WINE_CHROOT    chroot directory (default /var/cache/holoterrain/wine-trixie)
#   HOLOTERRAIN_DEBIAN_MIRROR  Debian mirror (default http://deb.debian.org/debian)
set -eu

CHROOT_DIR=${HOLOTERRAIN_WINE_CHROOT:-/var/cache/holoterrain/wine-trixie}
MIRROR=${HOLOTERRAIN_DEBIAN_MIRROR:-http://deb.debian.org/debian}
MARKER="$CHROOT_DIR/.holoterrain-complete"
LOCK_FILE="$CHROOT_DIR.lock"
SCRIPT_DIR=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
# Wine 10 (Debian 12's Wine 8 lacks the bcryptprimitives.dll Rust's std
# needs), lavapipe under winevulkan, and Xvfb for Wine's Direct3D; and
# osslsigncode 2.9, which signs the HoloLens 2 package where the machine's
# own is older than 2.7 (scripts/build-hololens.sh).
PACKAGES="wine wine64 mesa-vulkan-drivers libvulkan1 xvfb xauth osslsigncode"
# The Wine prefix inside the chroot, made by prepare so runs start quickly
# and print nothing about creating it.
WINE_PREFIX=/root/.wine-holoterrain
# What every Wine command inside the chroot runs with. WINEDEBUG=-all keeps
# Wine's own diagnostics off stderr so the program's output is all there is.
WINE_ENV="WINEPREFIX=$WINE_PREFIX WINEDEBUG=-all XDG_RUNTIME_DIR=/tmp/xdg HOME=/root \
PATH=/usr/lib/wine:/usr/local/bin:/usr/bin:/bin"

die() {
    echo "wine-chroot: $*" >&2
    exit 1
}

# Creates the Wine prefix; Mono and Gecko are not installed (the app needs
# neither), so wineboot is told not to ask for them.
chroot_finish() {
    echo "wine-chroot: creating the Wine prefix $WINE_PREFIX" >&2
    # shellcheck disable=SC2086 # WINE_ENV is a list of assignments
    chroot "$CHROOT_DIR" /usr/bin/env $WINE_ENV WINEDLLOVERRIDES="mscoree,mshtml=" \
        sh -c 'mkdir -p -m 700 /tmp/xdg && wine64 wineboot --init && wineserver --wait' \
        >"$CHROOT_DIR.wineboot.log" 2>&1 \
        || die "creating the Wine prefix failed; log: $CHROOT_DIR.wineboot.log"
}

# prepare, mount_system and unmount_all, shared with the Monado chroot.
CHROOT_TOOL=wine-chroot
. "$SCRIPT_DIR/chroot-lib.sh"

run() {
    xvfb=""
    binds=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --xvfb) xvfb="xvfb-run --auto-servernum"; shift ;;
            --bind) binds="$binds $2"; shift 2 ;;
            --) shift; break ;;
            *) die "unknown option $1" ;;
        esac
    done
    [ $# -gt 0 ] || die "run needs a command after --"
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
    mkdir -p -m 700 "$CHROOT_DIR/tmp/xdg"
    status=0
    # The Wine server and its helper processes are stopped before the run
    # (and its X server) ends, so none outlives it or complains on stderr.
    # shellcheck disable=SC2086 # WINE_ENV and xvfb are word lists
    chroot "$CHROOT_DIR" /usr/bin/env $WINE_ENV $xvfb \
        sh -c 'status=0; "$@" || status=$?; wineserver --kill 2>/dev/null; exit $status' wine-run "$@" \
        || status=$?
    unmount_all
    trap - EXIT INT TERM
    exit "$status"
}

case "${1:-}" in
    prepare) prepare ;;
    run) shift; run "$@" ;;
    path) echo "$CHROOT_DIR" ;;
    *) die "usage: $0 prepare | run [--xvfb] [--bind DIR]... -- CMD... | path" ;;
esac
