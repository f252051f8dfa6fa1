# Where a cross build keeps its cargo target directory, shared by
# scripts/windows-toolchain.sh and scripts/build-aarch64.sh. Sourced (bash),
# not run.
#
# cross_target_dir NAME prints CARGO_TARGET_DIR when set; else, as root,
# /var/cache/holoterrain/NAME-target (beside the chroots, kept between runs
# and clones as a CI cache would keep it: std and every crate built from
# source for the target cost minutes that a new clone need not pay again);
# else the repository's target directory. The scripts copy what they build
# into the repository's target directory, where the tests look for it.
cross_target_dir() {
  if [ -n "${CARGO_TARGET_DIR:-}" ]; then
    echo "$CARGO_TARGET_DIR"
  elif [ "$(id -u)" = 0 ]; then
    echo "${HOLOTERRAIN_CROSS_CACHE:-/var/cache/holoterrain}/$1-target"
  else
    echo target
  fi
}
