# Shared by the scripts that keep a Debian trixie chroot under
# /var/cache/holoterrain/ (monado-chroot.sh, wine-chroot.sh): build it once,
# bring an older one up to date, mount the system directories into it,
# unmount everything again.
# Sourced, not run. The sourcing script sets CHROOT_DIR, MIRROR, MARKER,
# LOCK_FILE, PACKAGES and CHROOT_TOOL (its name, for messages), and defines
# die(); it may define chroot_finish, run inside the new chroot's setup after
# the packages are installed.
# The marker lists the packages the chroot holds, one a line, so a package
# added to PACKAGES later reaches chroots built before.

mount_system() {
    mountpoint -q "$CHROOT_DIR/proc" || mount -t proc proc "$CHROOT_DIR/proc"
    mountpoint -q "$CHROOT_DIR/dev" || mount --rbind /dev "$CHROOT_DIR/dev"
}

# Unmounts everything mounted below the chroot, deepest first.
unmount_all() {
    for mounted in $(awk -v root="$CHROOT_DIR" '$2 == root || index($2, root "/") == 1 { print $2 }' /proc/mounts | sort -r); do
        umount -l "$mounted" 2>/dev/null || true
    done
}

# The packages of $PACKAGES the marker does not list (all of them without a marker).
missing_packages() {
    for package in $PACKAGES; do
        grep -qx "$package" "$MARKER" 2>/dev/null || printf '%s ' "$package"
    done
}

install_packages() {
    echo "$CHROOT_TOOL: installing $*" >&2
    if ! chroot "$CHROOT_DIR" /usr/bin/env DEBIAN_FRONTEND=noninteractive \
        sh -c "apt-get update && apt-get install -y --no-install-recommends $*" \
        >"$CHROOT_DIR.apt.log" 2>&1; then
        die "apt-get install in the chroot failed; log: $CHROOT_DIR.apt.log"
    fi
    chroot "$CHROOT_DIR" apt-get clean
}

# Builds the chroot unless a complete one holding every package exists; a
# complete one made before a package was added gets the missing ones; a chroot
# left half-built by an interrupted run is removed and rebuilt. As another
# user than root it fails even when the chroot exists, since runs need root too.
prepare() {
    [ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot and mount need it)"
    if [ -z "$(missing_packages)" ]; then
        return 0
    fi
    command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"
    mkdir -p "$(dirname "$CHROOT_DIR")"
    exec 9>"$LOCK_FILE"
    flock 9
    if [ -z "$(missing_packages)" ]; then
        return 0
    fi
    built=""
    if [ -f "$MARKER" ]; then
        mount_system
        trap unmount_all EXIT
        # shellcheck disable=SC2046 # one word a package
        install_packages $(missing_packages)
    else
        if [ -e "$CHROOT_DIR" ]; then
            echo "$CHROOT_TOOL: removing incomplete chroot $CHROOT_DIR" >&2
            unmount_all
            rm -rf --one-file-system "$CHROOT_DIR"
        fi
        started=$(date +%s)
        echo "$CHROOT_TOOL: debootstrap trixie into $CHROOT_DIR" >&2
        debootstrap --variant=minbase trixie "$CHROOT_DIR" "$MIRROR" >"$CHROOT_DIR.debootstrap.log" 2>&1 \
            || die "debootstrap failed (no network to $MIRROR?); log: $CHROOT_DIR.debootstrap.log"
        mount_system
        trap unmount_all EXIT
        install_packages $PACKAGES
        if command -v chroot_finish >/dev/null; then
            chroot_finish
        fi
        built="ready in $(($(date +%s) - started)) s"
    fi
    unmount_all
    trap - EXIT
    printf '%s\n' $PACKAGES >"$MARKER"
    [ -z "$built" ] || echo "$CHROOT_TOOL: $built" >&2
}
