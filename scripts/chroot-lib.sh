# Shared by the scripts that run commands in a Debian chroot under
# /var/cache/holoterrain/ (monado-chroot.sh, wine-chroot.sh, deb-chroot.sh)
# and by those around and inside them (desktop-sim.sh, monado/inside.sh):
# - debian_mirror: the Debian mirror, from the host's apt configuration;
# - parse_run_options: `run`'s options, bind directories kept as a list;
# - mount_system, bind_dirs, unmount_below: what a run mounts and unmounts;
# - run_passing_signals: the command in the background, SIGINT and SIGTERM
#   passed on to it as SIGTERM, its exit status returned;
# - prepare: for the trixie chroots that hold packages, building one once
#   and bringing an older one up to date.
# Sourced by bash, not run; it only defines functions. A sourcing script
# defines die() (one line on stderr, exit 1).

# Where debootstrap fetches from when neither the environment nor the
# host's apt configuration names a Debian mirror.
DEFAULT_DEBIAN_MIRROR=http://deb.debian.org/debian

# Prints the Debian mirror to build chroots from: $HOLOTERRAIN_DEBIAN_MIRROR
# when set; else the first Debian archive the host's apt sources name
# ($HOLOTERRAIN_APT_DIR, default /etc/apt: sources.list, then
# sources.list.d/*.list and *.sources by name, one-line and deb822 formats),
# so a machine behind a mirror or proxy keeps using it; else
# DEFAULT_DEBIAN_MIRROR. An entry counts when it is enabled, of type `deb`,
# has the `main` component and a Debian suite (a release name such as
# bookworm or trixie, or stable, testing, unstable, with -updates or
# -backports but not -security, which is another archive), over http,
# https, ftp or file (what debootstrap fetches from).
debian_mirror() {
    if [ -n "${HOLOTERRAIN_DEBIAN_MIRROR:-}" ]; then
        echo "$HOLOTERRAIN_DEBIAN_MIRROR"
        return
    fi
    local apt_dir=${HOLOTERRAIN_APT_DIR:-/etc/apt} file found
    local files=()
    [ ! -f "$apt_dir/sources.list" ] || files+=("$apt_dir/sources.list")
    for file in "$apt_dir"/sources.list.d/*; do
        case "$file" in *.list | *.sources) [ ! -f "$file" ] || files+=("$file") ;; esac
    done
    for file in "${files[@]}"; do
        case "$file" in
            *.sources) found=$(awk "$APT_SUITE_AWK$APT_DEB822_AWK" "$file") ;;
            *) found=$(awk "$APT_SUITE_AWK$APT_ONE_LINE_AWK" "$file") ;;
        esac
        if [ -n "$found" ]; then
            echo "$found"
            return
        fi
    done
    echo "$DEFAULT_DEBIAN_MIRROR"
}

# awk: whether a suite and a URI name a Debian archive debootstrap can use.
APT_SUITE_AWK='
function debian_archive(suite, uri,   release) {
    if (uri !~ /^(https?|ftp|file):/) return 0
    release = suite
    sub(/-(updates|backports|proposed-updates)$/, "", release)
    return release ~ /^(buzz|rex|bo|hamm|slink|potato|woody|sarge|etch|lenny|squeeze|wheezy|jessie|stretch|buster|bullseye|bookworm|trixie|forky|duke|sid|oldoldstable|oldstable|stable|testing|unstable)$/
}
'

# awk: the URI of the first Debian archive in a one-line sources file
# ("deb [option=value ...] URI SUITE COMPONENT...").
APT_ONE_LINE_AWK='
{
    sub(/#.*/, "")
    if ($1 != "deb") next
    i = 2
    if ($i ~ /^\[/) {
        while (i <= NF && $i !~ /\]$/) i++
        i++
    }
    uri = $i; suite = $(i + 1); main = 0
    for (j = i + 2; j <= NF; j++) if ($j == "main") main = 1
    if (main && debian_archive(suite, uri)) { print uri; exit }
}
'

# awk: the URI of the first Debian archive in a deb822 sources file
# (paragraphs of "Types:", "URIs:", "Suites:", "Components:", "Enabled:").
APT_DEB822_AWK='
BEGIN { RS = ""; FS = "\n" }
{
    delete field
    for (i = 1; i <= NF; i++) {
        line = $i
        if (line ~ /^#/ || line !~ /:/) continue
        key = tolower(substr(line, 1, index(line, ":") - 1))
        value = substr(line, index(line, ":") + 1)
        gsub(/^[ \t]+|[ \t]+$/, "", value)
        field[key] = value
    }
    if (tolower(field["enabled"]) == "no") next
    if (" " field["types"] " " !~ / deb /) next
    if (" " field["components"] " " !~ / main /) next
    split(field["uris"], uris, /[ \t]+/)
    suites = split(field["suites"], suite, /[ \t]+/)
    for (s = 1; s <= suites; s++)
        if (debian_archive(suite[s], uris[1])) { print uris[1]; exit }
}
'

# Reads `run`'s options into BINDS (every --bind DIR, in order, each one
# word whatever it holds), READ_ONLY_BINDS (every --bind-ro DIR, the same
# way) and RUN_COMMAND (what follows --). Options of the
# sourcing script's own go to its run_option function, when it defines one:
# called with the remaining arguments, it sets OPTION_WORDS to the number it
# used, or returns 1 for an option it does not know.
parse_run_options() {
    BINDS=()
    READ_ONLY_BINDS=()
    RUN_COMMAND=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --bind)
                [ $# -ge 2 ] || die "--bind needs a directory"
                BINDS+=("$2")
                shift 2
                ;;
            --bind-ro)
                [ $# -ge 2 ] || die "--bind-ro needs a directory"
                READ_ONLY_BINDS+=("$2")
                shift 2
                ;;
            --)
                shift
                RUN_COMMAND=("$@")
                break
                ;;
            *)
                if declare -F run_option >/dev/null && run_option "$@"; then
                    shift "$OPTION_WORDS"
                else
                    die "unknown option $1"
                fi
                ;;
        esac
    done
    [ ${#RUN_COMMAND[@]} -gt 0 ] || die "run needs a command after --"
}

# Mounts proc and the host's /dev into the chroot at $1.
mount_system() {
    mountpoint -q "$1/proc" || mount -t proc proc "$1/proc"
    mountpoint -q "$1/dev" || mount --rbind /dev "$1/dev"
}

# Binds each directory of READ_ONLY_BINDS read-only, then each of BINDS,
# at the same path inside the chroot at $1: read-only first, so a writable
# directory inside a read-only one (a cache in a checkout) stays writable.
bind_dirs() {
    local dir
    for dir in "${READ_ONLY_BINDS[@]}"; do
        [ -d "$dir" ] || die "bind source $dir is not a directory"
        mkdir -p "$1$dir"
        mount --bind "$dir" "$1$dir"
        mount -o remount,bind,ro "$1$dir"
    done
    for dir in "${BINDS[@]}"; do
        [ -d "$dir" ] || die "bind source $dir is not a directory"
        mkdir -p "$1$dir"
        mount --bind "$dir" "$1$dir"
    done
}

# Unmounts everything mounted at or below $1, deepest first (mount points
# with spaces included: /proc/mounts writes a space as \040).
unmount_below() {
    local mounted
    while IFS= read -r mounted; do
        umount -l "$mounted" 2>/dev/null || true
    done < <(awk -v root="$1" '{ path = $2; gsub(/\\040/, " ", path) }
        path == root || index(path, root "/") == 1 { print path }' /proc/mounts | sort -r)
}

# Runs CMD [ARG]... in the background with this script's stdin, passes
# SIGINT and SIGTERM to this script on to it as SIGTERM, so it can end
# cleanly first, waits for it (through any number of signals) and returns
# its exit status. With --group first, CMD runs in a process group of its
# own and the signal goes to the whole group: for a command behind a
# wrapper that passes nothing on (xvfb-run).
run_passing_signals() {
    local target_prefix=""
    if [ "$1" = --group ]; then
        shift
        target_prefix=-
        set -m
    fi
    exec 3<&0
    "$@" <&3 3<&- &
    local pid=$!
    [ -z "$target_prefix" ] || set +m
    exec 3<&-
    local previous_traps
    previous_traps=$(trap -p INT TERM)
    # shellcheck disable=SC2064 # the target is fixed now, not when the trap runs
    trap "kill -TERM -- $target_prefix$pid 2>/dev/null || true" INT TERM
    local status
    while :; do
        status=0
        wait "$pid" || status=$?
        kill -0 "$pid" 2>/dev/null || break
    done
    trap - INT TERM
    eval "$previous_traps"
    return "$status"
}

# The packages of $PACKAGES the marker does not list (all of them without a marker).
missing_packages() {
    local package
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

# For the trixie chroots (monado-chroot.sh, wine-chroot.sh; the sourcing
# script sets CHROOT_DIR, MARKER, LOCK_FILE, PACKAGES and CHROOT_TOOL, its
# name for messages, and may define chroot_finish, run after the packages
# are installed into a new chroot). The marker lists the packages the
# chroot holds, one a line, so a package added to PACKAGES later reaches
# chroots built before.
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
    local built="" started mirror
    if [ -f "$MARKER" ]; then
        mount_system "$CHROOT_DIR"
        trap 'unmount_below "$CHROOT_DIR"' EXIT
        # shellcheck disable=SC2046 # one word a package
        install_packages $(missing_packages)
    else
        if [ -e "$CHROOT_DIR" ]; then
            echo "$CHROOT_TOOL: removing incomplete chroot $CHROOT_DIR" >&2
            unmount_below "$CHROOT_DIR"
            rm -rf --one-file-system "$CHROOT_DIR"
        fi
        started=$(date +%s)
        mirror=$(debian_mirror)
        echo "$CHROOT_TOOL: debootstrap trixie into $CHROOT_DIR from $mirror" >&2
        debootstrap --variant=minbase trixie "$CHROOT_DIR" "$mirror" >"$CHROOT_DIR.debootstrap.log" 2>&1 \
            || die "debootstrap failed (no network to $mirror?); log: $CHROOT_DIR.debootstrap.log"
        mount_system "$CHROOT_DIR"
        trap 'unmount_below "$CHROOT_DIR"' EXIT
        # shellcheck disable=SC2086 # one word a package
        install_packages $PACKAGES
        if declare -F chroot_finish >/dev/null; then
            chroot_finish
        fi
        built="ready in $(($(date +%s) - started)) s"
    fi
    unmount_below "$CHROOT_DIR"
    trap - EXIT
    printf '%s\n' $PACKAGES >"$MARKER"
    [ -z "$built" ] || echo "$CHROOT_TOOL: $built" >&2
}
