#!/usr/bin/env bash
# The desktop OpenXR simulator in one command: starts Monado with its qwerty
# (keyboard and mouse) HMD and controllers and a window on your X display,
# runs `holoterrain xr` in it, and stops Monado when the app ends or on Ctrl-C.
#
# Usage: scripts/desktop-sim.sh [-- XR ARGS]
#   XR ARGS are passed to `holoterrain xr` (see docs/xr.md), for example
#   scripts/desktop-sim.sh -- --validation --report report.json
#
# Where monado-service is installed (Debian trixie, Ubuntu 24.04 and later) it
# is used directly. Otherwise (Debian 12) Monado runs in the project's trixie
# chroot (scripts/monado-chroot.sh), which needs root: the script prepares the
# chroot once and asks sudo for the rest. There, the current directory and the
# binary's directory are visible at the same paths, so a relative --report
# path works; other paths outside them do not exist for the app.
#
# Environment:
#   DISPLAY           the X server to open the windows on (required)
#   HOLOTERRAIN_BIN   the holoterrain binary (default: `cargo build`, then target/debug/holoterrain)
#   RUST_LOG          the app's log filter (default: info, which logs session states and reseeds)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)

die() {
    echo "desktop-sim: $*" >&2
    exit 1
}

# run_passing_signals, shared with the chroot scripts.
# shellcheck source=scripts/chroot-lib.sh
. "$repo/scripts/chroot-lib.sh"

xr_args=()
if [ $# -gt 0 ]; then
    [ "$1" = "--" ] || die "usage: $0 [-- XR ARGS]"
    shift
    xr_args=("$@")
fi
[ -n "${DISPLAY:-}" ] || die "DISPLAY is not set: run this in a desktop session (X11 or XWayland)"

if [ -z "${HOLOTERRAIN_BIN:-}" ]; then
    echo "desktop-sim: building holoterrain (cargo build)" >&2
    (cd "$repo" && cargo build --quiet) || die "cargo build failed"
    HOLOTERRAIN_BIN="$repo/target/debug/holoterrain"
fi
[ -x "$HOLOTERRAIN_BIN" ] || die "no holoterrain binary at $HOLOTERRAIN_BIN"
HOLOTERRAIN_BIN=$(realpath "$HOLOTERRAIN_BIN")
export HOLOTERRAIN_BIN RUST_LOG=${RUST_LOG:-info}

if command -v monado-service >/dev/null; then
    runner=(bash "$repo/scripts/monado/inside.sh" qwerty "$HOLOTERRAIN_BIN" xr "${xr_args[@]}")
else
    if [ "$(id -u)" != 0 ]; then
        # Root is needed for the chroot; the X server's address and cookie go along.
        export XAUTHORITY=${XAUTHORITY:-$HOME/.Xauthority}
        exec sudo --preserve-env=DISPLAY,XAUTHORITY,RUST_LOG,HOLOTERRAIN_BIN "$0" -- "${xr_args[@]}"
    fi
    [ "$PWD" != / ] || die "run this from a directory other than /: it is bound into the chroot"
    "$repo/scripts/monado-chroot.sh" prepare
    runner=("$repo/scripts/monado-chroot.sh" run --mode qwerty
        --bind "$(dirname "$HOLOTERRAIN_BIN")" --bind "$PWD"
        -- env -C "$PWD" RUST_LOG="$RUST_LOG" "$HOLOTERRAIN_BIN" xr "${xr_args[@]}")
fi

# The key map of Monado 25.0's qwerty driver (src/xrt/drivers/qwerty/qwerty_sdl.c).
cat >&2 <<'KEYS'
desktop-sim: Monado opens two windows: "Monado" shows what the headset shows
(left eye | right eye); "Monado! ..." is its debug window, and only it takes the
keyboard and mouse: click into an empty part of it first and keep it focused.
  W A S D          move the head forward, left, back, right
  Q E              move the head down, up
  arrow keys       turn the head (or drag with the right mouse button held)
  Left Shift       hold to move faster; mouse wheel or keypad +/-: movement speed
  Left Ctrl / Alt  hold to move and turn the left / right controller instead
  left click       the right controller's trigger (the left one's while Left Ctrl
                   is held): select; a short click reseeds the terrain, or
                   presses the menu button the controller's ray is on
  N                the controller's menu button: the menu opens on its ray
  C                controllers follow the head, or stop following it
  R                put the controllers back where they started
  Ctrl-C here      ends the session cleanly and stops Monado
KEYS

# Ctrl-C or SIGTERM to this script reaches the app as SIGTERM, and the app
# ends its session before Monado stops.
status=0
run_passing_signals "${runner[@]}" || status=$?
exit "$status"
