#!/usr/bin/env bash
# Prepares (once) and uses a Debian trixie chroot holding Wine 10, lavapipe
# and Xvfb, so holoterrain.exe (scripts/build-windows.sh) can be run and
# tested on a Debian 12 machine, whose own Wine 8 cannot start it.
#
# Usage:
#   scripts/wine-chroot.sh prepare
#       Build the chroot and its Wine prefix unless a complete one exists
#       (marker file). A chroot left half-built by an interrupted run is
#       removed and rebuilt.
#   scripts/wine-chroot.sh run [--xvfb] [--bind DIR]... [--bind-ro DIR]... -- CMD [ARG]...
#       Mount proc and /dev into the chroot, bind each DIR at the same path
#       inside it (a path may hold spaces), run CMD inside with the Wine
#       prefix set up (`wine64 X.exe` runs a Windows program; unix paths
#       reach it through drive Z:), then stop the Wine server and unmount.
#       With --xvfb, CMD runs under xvfb-run, with DISPLAY pointing at a
#       fresh virtual X server (Wine's Direct3D needs one; its Vulkan does
#       not). Exits with CMD's status; SIGINT or SIGTERM to this script is
#       passed on as SIGTERM to CMD and what runs it (with --xvfb the run
#       then exits 143: xvfb-run passes nothing on and ends at once). Runs
#       are serialised with a lock, since each ends by unmounting.
#   scripts/wine-chroot.sh path
#       Print the chroot directory.
#   scripts/wine-chroot.sh mirror
#       Print the Debian mirror a new chroot is built from.
#
# Environment:
#   HOLOTERRAIN_WINE_CHROOT    chroot directory (default /var/cache/holoterrain/wine-trixie)
#   HOLOTERRAIN_DEBIAN_MIRROR  Debian mirror (default: the first Debian archive
#                              in the host's apt sources, else http://deb.debian.org/debian)
#   HOLOTERRAIN_APT_DIR        where the host's apt sources are (default /etc/apt)
set -euo pipefail

CHROOT_DIR=${HOLOTERRAIN_WINE_CHROOT:-/var/cache/holoterrain/wine-trixie}
MARKER="$CHROOT_DIR/.holoterrain-complete"
LOCK_FILE="$CHROOT_DIR.lock"
SCRIPT_DIR=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
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
WINE_ENV=(WINEPREFIX="$WINE_PREFIX" WINEDEBUG=-all XDG_RUNTIME_DIR=/tmp/xdg HOME=/root
    PATH=/usr/lib/wine:/usr/local/bin:/usr/bin:/bin)

die() {
    echo "wine-chroot: $*" >&2
    exit 1
}

# Creates the Wine prefix; Mono and Gecko are not installed (the app needs
# neither), so wineboot is told not to ask for them.
chroot_finish() {
    echo "wine-chroot: creating the Wine prefix $WINE_PREFIX" >&2
    chroot "$CHROOT_DIR" /usr/bin/env "${WINE_ENV[@]}" WINEDLLOVERRIDES="mscoree,mshtml=" \
        sh -c 'mkdir -p -m 700 /tmp/xdg && wine64 wineboot --init && wineserver --wait' \
        >"$CHROOT_DIR.wineboot.log" 2>&1 \
        || die "creating the Wine prefix failed; log: $CHROOT_DIR.wineboot.log"
}

CHROOT_TOOL=wine-chroot
# shellcheck source=scripts/chroot-lib.sh
. "$SCRIPT_DIR/chroot-lib.sh"

# run's own option: --xvfb.
run_option() {
    [ "$1" = --xvfb ] || return 1
    xvfb=(xvfb-run --auto-servernum)
    OPTION_WORDS=1
}

run() {
    xvfb=()
    parse_run_options "$@"
    [ -f "$MARKER" ] || die "no complete chroot at $CHROOT_DIR: run '$0 prepare' first"
    exec 9>"$LOCK_FILE"
    flock 9
    trap 'unmount_below "$CHROOT_DIR"' EXIT
    # A signal before the command runs still cleans up.
    trap 'exit 143' INT TERM
    mount_system "$CHROOT_DIR"
    bind_dirs "$CHROOT_DIR"
    mkdir -p -m 700 "$CHROOT_DIR/tmp/xdg"
    status=0
    # The Wine server and its helper processes are stopped before the run
    # (and its X server) ends, so none outlives it or complains on stderr.
    # The wrapper doing it outlasts the SIGTERM its group gets (which CMD
    # gets too) to return CMD's status; xvfb-run does not: under --xvfb a
    # signalled run ends with 143, and the Wine server is stopped here.
    run_passing_signals --group chroot "$CHROOT_DIR" /usr/bin/env "${WINE_ENV[@]}" "${xvfb[@]}" \
        sh -c 'trap : TERM; status=0; "$@" || status=$?; wineserver --kill 2>/dev/null; exit $status' \
        wine-run "${RUN_COMMAND[@]}" || status=$?
    if [ "$status" -gt 128 ]; then
        chroot "$CHROOT_DIR" /usr/bin/env "${WINE_ENV[@]}" wineserver --kill 2>/dev/null || true
    fi
    exit "$status"
}

case "${1:-}" in
    prepare) prepare ;;
    run) shift; run "$@" ;;
    path) echo "$CHROOT_DIR" ;;
    mirror) debian_mirror ;;
    *) die "usage: $0 prepare | run [--xvfb] [--bind DIR]... [--bind-ro DIR]... -- CMD... | path | mirror" ;;
esac
