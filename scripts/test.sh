#!/usr/bin/env bash
# The whole test suite: installs what it needs, then formatting, lints and every test; at the end one line a phase with its time (docs/performance.md keeps the table).
#
# Each heavy thing is built once and shared: the host's build of every
# target lints the workspace as it compiles (clippy-driver as cargo's
# workspace wrapper, so the dependencies are compiled once, not also
# checked); the Windows and HoloLens 2 builds lint their targets the same
# way; the three cross builds share one cargo target directory
# (scripts/cross-target-dir.sh), so the build scripts and procedural macros
# they have in common compile once; the test runtime's Linux library comes
# out of the host's test build. As root the Debian chroots the tests run in
# are built in the background while the code compiles.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/test-phases.sh
trap print_phases EXIT

log_dir=target/test-logs
mkdir -p "$log_dir"

phase "install the test set's Debian packages" scripts/install-deps.sh test

# The chroots (Monado, Wine, the clean Debian 12 base) and the glTF
# validator and the mesh checker, fetched and built while the code compiles: mostly downloads and
# unpacking, which leave the compilers their cores. Each script takes a lock,
# so a test that needs one before it is ready waits for it.
background_pids=()
if [ "$(id -u)" = 0 ]; then
  for prepare in monado-chroot wine-chroot deb-chroot; do
    scripts/$prepare.sh prepare >"$log_dir/$prepare.log" 2>&1 &
    background_pids+=($!)
  done
  scripts/gltf-validator.sh >"$log_dir/gltf-validator.log" 2>&1 &
  background_pids+=($!)
  scripts/mesh-checker.sh >"$log_dir/mesh-checker.log" 2>&1 &
  background_pids+=($!)
fi

phase "cargo fmt --check" cargo fmt --all -- --check
# The host's build of every target (tests, benches, examples), linted as it
# compiles, warnings denied; `cargo test` below runs what it built.
phase "host build and clippy (all targets)" host_cargo test --workspace --all-targets --locked --no-run
# The Windows exe and zip, which tests/windows_wine.rs runs under Wine (with
# the packaged app's entry, holoterrain-packaged.exe, for
# tests/hololens_package.rs), and the test runtime's DLL; linted as built.
phase "Windows build and clippy" scripts/build-windows.sh
# The HoloLens 2 package: the signed .msix that tests/hololens_package.rs
# checks (docs/hololens.md, "On the device"), linted as built.
phase "HoloLens 2 package and clippy" scripts/build-hololens.sh
# The ARM64 build and unit tests, which tests/aarch64_qemu.rs runs under qemu.
phase "ARM64 Linux build" scripts/build-aarch64.sh
# The test OpenXR runtime's two builds beside their manifests (docs/testrt.md),
# which tests/xr_testrt.rs, tests/windows_wine.rs and tests/testrt run on:
# both already built above, so this only places them.
phase "test runtime (placed)" scripts/build-test-runtime.sh

# Waits for the background preparations; their logs if one failed (the
# tests then prepare again and fail with the reason).
background_ready() {
  local pid failed=0
  for pid in "${background_pids[@]}"; do
    wait "$pid" || failed=1
  done
  if [ "$failed" = 1 ]; then
    echo "test.sh: a chroot or the glTF validator could not be prepared in the background; logs in $log_dir:" >&2
    tail -n 5 "$log_dir"/*.log >&2
  fi
}
phase "chroots ready (waited for after the builds)" background_ready

# The tests, in three groups at once. The install check builds the
# workspace again in a clean Debian 12 chroot (tests/install_deps.rs); the
# tests that run Wine, qemu and the other chroots spend most of their time
# waiting on those programs or on one core; the others run beside both.
# Every test waits for what it needs rather than for a fixed time, so a busy
# machine slows them, never fails them. One `cargo test --workspace`
# resolution for every group, so nothing is compiled again.
install_check_tests=(install_deps)
emulated_tests=(windows_wine d3d11_shaders hololens_package aarch64_qemu package_deb chroot_scripts)
other_tests=()
for file in tests/*.rs tests/testrt/tests/*.rs; do
  name=$(basename "$file" .rs)
  [[ " ${install_check_tests[*]} ${emulated_tests[*]} " == *" $name "* ]] || other_tests+=("$name")
done
as_test_flags() { printf -- '--test\n%s\n' "$@"; }
mapfile -t install_check_flags < <(as_test_flags "${install_check_tests[@]}")
mapfile -t emulated_flags < <(as_test_flags "${emulated_tests[@]}")
mapfile -t other_flags < <(as_test_flags "${other_tests[@]}")

# in_background LOG FLAGS...: those tests, their output in LOG, their time
# and exit status in LOG.time.
in_background() {
  local log=$1 started status=0
  shift
  started=$(date +%s)
  host_cargo test --workspace --locked "$@" >"$log" 2>&1 || status=$?
  echo "$(($(date +%s) - started)) $status" >"$log.time"
  return "$status"
}
# finished NAME LOG PID: waits for a group started in the background,
# records its phase and prints its output; its exit status.
finished() {
  local name=$1 log=$2 pid=$3 status=0 seconds=0
  wait "$pid" || status=$?
  read -r seconds _ <"$log.time" || seconds=0
  record_phase "$name (beside the rest)" "$seconds" "$status"
  echo "test.sh: $name ($log):"
  cat "$log"
  return "$status"
}
run_others() {
  host_cargo test --workspace --locked --lib --bins "${other_flags[@]}" &&
    host_cargo test --workspace --locked --doc
}
install_check_log="$log_dir/tests-install-check.log"
emulated_log="$log_dir/tests-in-chroots-wine-qemu.log"
in_background "$install_check_log" "${install_check_flags[@]}" &
install_check_pid=$!
in_background "$emulated_log" "${emulated_flags[@]}" &
emulated_pid=$!
others_status=0
phase "the other tests (beside the rest)" run_others || others_status=$?
install_check_status=0
finished "the install check" "$install_check_log" "$install_check_pid" || install_check_status=$?
emulated_status=0
finished "tests in chroots, Wine and qemu" "$emulated_log" "$emulated_pid" || emulated_status=$?
[ "$others_status" = 0 ] && [ "$install_check_status" = 0 ] && [ "$emulated_status" = 0 ]
