# Where the cross builds keep their cargo target directory, one for all
# three (scripts/windows-toolchain.sh, scripts/build-aarch64.sh,
# scripts/build-hololens.sh). Sourced (bash), not run.
#
# cross_target_dir prints CARGO_TARGET_DIR when set; else, as root,
# /var/cache/holoterrain/cross-target (beside the chroots, kept between runs
# and clones as a CI cache would keep it: std and every crate built from
# source for a target cost minutes that a new clone need not pay again);
# else the repository's target directory. One directory for the three
# targets: they are built by the same compiler (Debian's), so the build
# scripts and procedural macros they share, which run on this machine,
# compile once. The scripts copy what they build into the repository's
# target directory, where the tests look for it.
cross_target_dir() {
  if [ -n "${CARGO_TARGET_DIR:-}" ]; then
    echo "$CARGO_TARGET_DIR"
  elif [ "$(id -u)" = 0 ]; then
    echo "${HOLOTERRAIN_CROSS_CACHE:-/var/cache/holoterrain}/cross-target"
  else
    echo target
  fi
}
