#!/usr/bin/env bash
# A clean Debian 12 (bookworm) system to install holoterrain's .deb into, as
# a user would: a minbase debootstrap built once and kept untouched, and for
# each run a throw-away overlay on top of it, so every run starts clean.
#
# Usage:
#   scripts/deb-chroot.sh prepare
#       Build the clean base unless a complete one exists (marker file). A
#       base left half-built by an interrupted run is removed and rebuilt.
#   scripts/deb-chroot.sh run [--bind DIR]... [--bind-ro DIR]... -- CMD [ARG]...
#       Mount a fresh overlay over the base (changes go to a temporary
#       directory, never to the base), mount proc and /dev, bind each DIR at
#       the same path inside (a path may hold spaces; --bind-ro read-only),
#       run CMD inside with network access for apt, then unmount and delete
#       the overlay. Exits with CMD's status; SIGINT or SIGTERM to this
#       script is passed on to CMD as SIGTERM.
#   scripts/deb-chroot.sh path
#       Print the base directory.
#   scripts/deb-chroot.sh mirror
#       Print the Debian mirror the base is built from.
#
# Downloaded .debs are kept in $BASE_DIR.apt-archives and bound at the
# overlay's /var/cache/apt/archives, so a rerun does not fetch them again;
# apt still resolves every dependency against the mirror's current index.
#
# Environment:
#   HOLOTERRAIN_DEB_CHROOT     base directory (default /var/cache/holoterrain/bookworm-minbase)
#   HOLOTERRAIN_DEBIAN_MIRROR  Debian mirror (default: the first Debian archive
#                              in the host's apt sources, else http://deb.debian.org/debian)
#   HOLOTERRAIN_APT_DIR        where the host's apt sources are (default /etc/apt)
set -euo pipefail

BASE_DIR=${HOLOTERRAIN_DEB_CHROOT:-/var/cache/holoterrain/bookworm-minbase}
SCRIPT_DIR=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
MARKER="$BASE_DIR.complete"
LOCK_FILE="$BASE_DIR.lock"
ARCHIVES="$BASE_DIR.apt-archives"

die() {
    echo "deb-chroot: $*" >&2
    exit 1
}

# shellcheck source=scripts/chroot-lib.sh
. "$SCRIPT_DIR/chroot-lib.sh"

prepare() {
    if [ -f "$MARKER" ]; then
        return 0
    fi
    [ "$(id -u)" = 0 ] || die "must run as root (debootstrap, mount and chroot need it)"
    command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"
    mkdir -p "$(dirname "$BASE_DIR")"
    exec 9>"$LOCK_FILE"
    flock 9
    if [ -f "$MARKER" ]; then
        return 0
    fi
    if [ -e "$BASE_DIR" ]; then
        echo "deb-chroot: removing incomplete base $BASE_DIR" >&2
        unmount_below "$BASE_DIR"
        rm -rf --one-file-system "$BASE_DIR"
    fi
    started=$(date +%s)
    mirror=$(debian_mirror)
    echo "deb-chroot: debootstrap bookworm into $BASE_DIR from $mirror" >&2
    debootstrap --variant=minbase bookworm "$BASE_DIR" "$mirror" >"$BASE_DIR.debootstrap.log" 2>&1 \
        || die "debootstrap failed (no network to $mirror?); log: $BASE_DIR.debootstrap.log"
    # debootstrap's own downloads are not part of a user's system.
    rm -f "$BASE_DIR"/var/cache/apt/archives/*.deb
    touch "$MARKER"
    echo "deb-chroot: ready in $(($(date +%s) - started)) s" >&2
}

run() {
    parse_run_options "$@"
    [ "$(id -u)" = 0 ] || die "must run as root (mount and chroot need it)"
    [ -f "$MARKER" ] || die "no complete base at $BASE_DIR: run '$0 prepare' first"
    # Shared lock: runs may overlap each other, but never a rebuild of the base.
    exec 9>"$LOCK_FILE"
    flock -s 9
    mkdir -p "$ARCHIVES/partial"
    work=$(mktemp -d "$BASE_DIR.run.XXXXXX")
    root="$work/root"
    mkdir -p "$work/upper" "$work/work" "$root"
    # Only the overlay's own directories are deleted: binds below $root are
    # other people's files, and rmdir refuses if one were still mounted.
    trap 'unmount_below "$root"; rm -rf "$work/upper" "$work/work"; rmdir "$root" "$work"' EXIT
    trap 'exit 130' INT TERM
    mount -t overlay overlay -o "lowerdir=$BASE_DIR,upperdir=$work/upper,workdir=$work/work" "$root"
    mount_system "$root"
    mount --bind "$ARCHIVES" "$root/var/cache/apt/archives"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    bind_dirs "$root"
    status=0
    run_passing_signals chroot "$root" /usr/bin/env -i \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "${RUN_COMMAND[@]}" || status=$?
    exit "$status"
}

case "${1:-}" in
    prepare) prepare ;;
    run) shift; run "$@" ;;
    path) echo "$BASE_DIR" ;;
    mirror) debian_mirror ;;
    *) die "usage: $0 prepare | run [--bind DIR]... [--bind-ro DIR]... -- CMD... | path | mirror" ;;
esac
