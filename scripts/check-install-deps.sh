#!/usr/bin/env bash
# Whether `scripts/install-deps.sh test` installs everything the workspace's
# build and its package-only tests need, where nothing installed by hand
# can hide a gap: a clean Debian 12 overlay (scripts/deb-chroot.sh) that
# holds only a C compiler (what the README's "Rust toolchain installed"
# machine has: rustc links through cc) and what install-deps.sh installs,
# with the host's Rust toolchain bound read-only. There the workspace builds
# and, with CI set, its unit tests run (`cargo test --workspace --lib`) and
# so do the integration tests that need nothing but Debian packages
# (LOCAL_TESTS: Vulkan on lavapipe with the validation layer, the shader
# tools, the simulator, the command line, the desktop manifests' validators),
# so a test that would skip for want of a header, a library or a tool fails
# instead, naming what is missing. One cargo run builds every library and
# program of the workspace and runs those tests, so each crate compiles
# once (a separate `cargo build` would compile the workspace a second time,
# without the test dependencies' features). The tests that need chroots, Wine, qemu
# or the cross builds are not run here: the test command's own run of them
# on the host is what checks their packages.
#
# Usage: scripts/check-install-deps.sh
#
# Needs root (deb-chroot.sh: debootstrap, mount, chroot) and a rustup
# toolchain of root's (rustc on PATH, its sysroot outside /usr). The crates
# are fetched on the host first (`cargo fetch`), so the chroot builds
# offline from the host's cargo registry. Its target directory stays
# in /var/cache/holoterrain/install-check-target (HOLOTERRAIN_CROSS_CACHE
# moves it), so later runs rebuild only what changed; apt's downloads are kept
# by deb-chroot.sh. Exits with the in-chroot check's status.
set -euo pipefail

die() {
    echo "check-install-deps: $*" >&2
    exit 1
}

SCRIPT_DIR=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
# Integration tests that need only what install-deps.sh installs.
LOCAL_TESTS=(render sim sim_placement cli manifests)
REPO=$(dirname "$SCRIPT_DIR")

[ $# -eq 0 ] || die "takes no arguments; usage: $0"
[ "$(id -u)" = 0 ] || die "must run as root (the clean Debian 12 chroot needs mount and chroot)"
command -v rustc >/dev/null || die "no rustc on PATH: the check builds with the host's Rust toolchain"

SYSROOT=$(rustc --print sysroot)
[ -x "$SYSROOT/bin/cargo" ] || die "the Rust toolchain at $SYSROOT has no cargo"
case "$SYSROOT" in
    /usr | /usr/*) die "the Rust toolchain at $SYSROOT is the system's; bound into the chroot it would hide the chroot's own /usr: use a rustup toolchain" ;;
esac
CARGO_HOME_DIR=${CARGO_HOME:-$HOME/.cargo}
(cd "$REPO" && cargo fetch --locked --quiet) || die "cargo fetch failed: the chroot builds offline from what the host fetched"
TARGET_DIR="${HOLOTERRAIN_CROSS_CACHE:-/var/cache/holoterrain}/install-check-target"
mkdir -p "$TARGET_DIR"

"$SCRIPT_DIR/deb-chroot.sh" prepare

# What runs inside: the machine's C compiler, then the README's install step
# exactly as the test command runs it, then the build and the tests.
# shellcheck disable=SC2016 # expanded inside the chroot
inside='
set -euo pipefail
echo "check-install-deps: installing a C compiler (gcc libc6-dev), as on a machine with Rust" >&2
apt-get update -qq
apt-get install -y -qq --no-install-recommends gcc libc6-dev >/dev/null
cd "$REPO"
scripts/install-deps.sh test
echo "check-install-deps: building the workspace, then its unit tests and the integration tests $LOCAL_TESTS, CI set" >&2
cargo test --workspace --lib --bins --locked --offline --no-fail-fast $(printf -- "--test %s " $LOCAL_TESTS)
'

exec "$SCRIPT_DIR/deb-chroot.sh" run \
    --bind-ro "$SYSROOT" --bind-ro "$REPO" --bind "$CARGO_HOME_DIR" --bind "$TARGET_DIR" \
    -- /usr/bin/env CI=true REPO="$REPO" LOCAL_TESTS="${LOCAL_TESTS[*]}" \
    CARGO_HOME="$CARGO_HOME_DIR" CARGO_TARGET_DIR="$TARGET_DIR" \
    PATH="$SYSROOT/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    bash -c "$inside"
