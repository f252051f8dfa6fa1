#!/bin/sh
# Runs inside a fresh overlay of the clean Debian 12 chroot
# (scripts/deb-chroot.sh), as tests/package_deb.rs's user: installs the .deb
# with apt, uses the installed program, purges it, and leaves what it saw in
# OUT for the test to judge.
#
# Usage: installed-check.sh OUT DEB
set -eu
OUT=$1
DEB=$2

step() {
    echo "== $*" >&2
}

# Every path on the system, less the ones apt, dpkg, man-db and the kernel
# rewrite on any install (logs, package lists, the package database, caches)
# and this run's own scratch and temporary files.
snapshot() {
    find / -xdev \( -path /proc -o -path /dev -o -path /sys -o -path /run -o -path /tmp \
        -o -path "$OUT" -o -path /var/cache/apt -o -path /var/lib/apt -o -path /var/lib/dpkg \
        -o -path /var/log -o -path /var/cache/man -o -path /var/cache/debconf \
        -o -path /var/cache/ldconfig \) -prune -o -print | sort
}

step "apt-get update"
apt-get update -qq
# What a desktop system has and minbase lacks: man, and the CA certificates
# (which apt itself recommends, so once anything pulls them in, autoremove
# keeps them: they would muddy the before/after comparison).
step "install man-db and ca-certificates"
apt-get install -y -qq man-db ca-certificates >/dev/null
snapshot >"$OUT/before.txt"
dpkg-query -W -f '${Package} ${Status}\n' >"$OUT/packages-before.txt"

step "apt-get install $DEB (with its Recommends, as apt does by default)"
apt-get install -y -qq "$DEB" >"$OUT/apt-install.log" 2>&1
dpkg-query -W -f '${Package} ${Status}\n' >"$OUT/packages-installed.txt"
dpkg -L holoterrain >"$OUT/package-files.txt"
command -v holoterrain >"$OUT/which.txt"

step "holoterrain sim --frames 60 --out /tmp/x"
cd /tmp
holoterrain sim --frames 60 --out /tmp/x 2>"$OUT/sim.log"
cp /tmp/x/report.json "$OUT/sim-report.json"
ls /tmp/x >"$OUT/sim-files.txt"

step "holoterrain generate"
holoterrain generate 2>"$OUT/generate.log"
cp /tmp/heightmap.png "$OUT/heightmap.png"

step "man holoterrain-sim"
man -w holoterrain-sim >"$OUT/man-path.txt"
MANWIDTH=80 man -P cat holoterrain-sim 2>/dev/null | col -b >"$OUT/man-sim.txt"

step "bash completion"
bash -c '. /usr/share/bash-completion/completions/holoterrain && complete -p holoterrain' >"$OUT/bash-complete.txt"

step "the desktop entry's command, with no OpenXR runtime and stdin closed"
desktop_exec=$(sed -n 's/^Exec=//p' /usr/share/applications/*.desktop)
sh -c "$desktop_exec" </dev/null >"$OUT/desktop-exec.txt" 2>&1 || true

rm -rf /tmp/x /tmp/heightmap.png
step "apt-get purge holoterrain, then autoremove what it pulled in"
apt-get purge -y -qq holoterrain >"$OUT/apt-purge.log" 2>&1
apt-get autoremove --purge -y -qq >>"$OUT/apt-purge.log" 2>&1
dpkg-query -W -f '${Package} ${Status}\n' >"$OUT/packages-after.txt"
snapshot >"$OUT/after.txt"
step "done"
