#!/usr/bin/env bash
# Builds the Windows edition on Debian 12: target/x86_64-pc-windows-gnu/release/holoterrain.exe
# and target/dist/holoterrain-<version>-windows-x86_64.zip (the exe, with the
# Khronos OpenXR loader linked in, README-windows.txt and the licences of
# everything built into it). See docs/windows.md. Beside the exe, not in the
# zip: holoterrain-hlsl-interface.exe (tests/hlsl-interface), which the Wine
# tests run to compile and compare both Direct3D 11 shader variants, and the
# test runtime's DLL (scripts/build-test-runtime.sh windows places it), built
# in the same cargo run so that it shares every crate. Everything is linted
# by clippy as it compiles (scripts/windows-toolchain.sh).
#
# Run as root to install the Debian packages it needs; as another user it
# names the missing ones. Only Debian packages and crates.io are downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."

target_dir=${CARGO_TARGET_DIR:-target}
# Debian's Rust 1.96 and std sources, MinGW-w64, cmake, zip.
scripts/install-deps.sh windows
# The cross toolchain's environment and windows_cargo.
source scripts/windows-toolchain.sh
target=$WINDOWS_TARGET

started=$(date +%s)
windows_cargo build -p holoterrain -p holoterrain-hlsl-interface -p holoterrain-testrt
exe="$target_dir/$target/release/holoterrain.exe"
if [ "$WINDOWS_TARGET_DIR" != "$target_dir" ]; then
  mkdir -p "$target_dir/$target/release"
  for built in holoterrain.exe holoterrain-packaged.exe holoterrain-hlsl-interface.exe; do
    cp "$WINDOWS_TARGET_DIR/$target/release/$built" "$target_dir/$target/release/$built"
  done
fi

# The exe must start on a bare Windows: it may import system DLLs only
# (no MinGW runtime, no OpenXR loader DLL). vulkan-1.dll comes with every
# GPU driver that has Vulkan; d3d11.dll, dxgi.dll and d3dcompiler_47.dll
# are part of every Windows 10 and 11, as are combase.dll and rpcrt4.dll
# (the windows crate's COM error handling), iphlpapi.dll (the network
# interfaces DNS-SD advertises a shared session on) and propsys.dll (the
# property system: cpal reads the audio device's name with it).
system_dlls='^(kernel32|ntdll|user32|advapi32|ws2_32|bcrypt|bcryptprimitives|userenv|shell32|ole32|oleaut32|api-ms-win-.*|combase|rpcrt4|iphlpapi|propsys|vulkan-1|d3d11|dxgi|d3dcompiler_47|msvcrt|ucrtbase)\.dll$'
imports=$(x86_64-w64-mingw32-objdump -p "$exe" | sed -n 's/^\s*DLL Name: //p' | tr 'A-Z' 'a-z')
foreign=$(grep -Ev "$system_dlls" <<<"$imports" || true)
if [ -n "$foreign" ]; then
  echo "error: $exe imports DLLs a Windows PC does not have: $foreign" >&2
  exit 1
fi

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
name="holoterrain-$version-windows-x86_64"
stage="$target_dir/dist/$name"
rm -rf "$stage" "$target_dir/dist/$name.zip"
mkdir -p "$stage/LICENSES"
cp "$exe" "$stage/"
cp packaging/windows/README-windows.txt "$stage/"
# The HoloLens 2 package's guide, for owners who get the zip first.
sed -e "s/@VERSION@/$version/g" -e "s/@CERTIFICATE@/holoterrain-$version-hololens2-test.cer/g" \
  packaging/hololens/README-hololens.txt >"$stage/README-hololens.txt"

# Licences of what the exe contains: the Khronos OpenXR loader and the
# jsoncpp it embeds, the MinGW-w64 runtime (winpthreads, CRT start-up code)
# and GCC runtime libraries, Rust's std, every crate it links, and the font.
registry=("${CARGO_HOME:-$HOME/.cargo}"/registry/src/*)
openxr_sdk=$(ls -d "${registry[@]/%//openxr-sys-}"*/OpenXR-SDK | head -n 1)
{
  cat "$openxr_sdk/LICENSE"
  echo
  cat "$openxr_sdk/LICENSES/Apache-2.0.txt"
} >"$stage/LICENSES/OpenXR-loader.txt"
cp "$openxr_sdk/src/external/jsoncpp/LICENSE" "$stage/LICENSES/jsoncpp.txt"
cp /usr/share/doc/mingw-w64-x86-64-dev/copyright "$stage/LICENSES/mingw-w64-runtime.txt"
cp /usr/share/doc/gcc-mingw-w64-x86-64-posix-runtime/copyright "$stage/LICENSES/gcc-runtime.txt"
cp /usr/share/doc/rust-web-src/copyright "$stage/LICENSES/rust-std.txt"
# The labels' font, built into the exe (src/render/ui.rs).
cp src/render/font/DejaVu-LICENSE.txt "$stage/LICENSES/DejaVu-fonts.txt"
{
  echo "Rust crates built into holoterrain.exe, each with its licence files."
  /usr/bin/cargo tree --locked --target "$target" --edges normal,no-proc-macro --prefix none \
      --format '{p}|{l}' | sed 's/ (\*)$//; s/ (.*)|/|/; s/ v/|/' | sort -u |
    while IFS='|' read -r crate crate_version licence; do
      [ "$crate" = holoterrain ] && continue
      echo
      echo "=== $crate $crate_version ($licence)"
      files=$(ls -d "${registry[@]/%//$crate-$crate_version}"/LICEN[CS]E* \
        "${registry[@]/%//$crate-$crate_version}"/COPYING* 2>/dev/null || true)
      [ -n "$files" ] || echo "(the crate ships no licence file: see the licence texts at the end)"
      for file in $files; do
        echo "--- ${file##*/}"
        cat "$file"
      done
    done
  echo
  echo "=== Licence texts for crates that ship none of their own"
  echo "--- MIT"
  cat "$openxr_sdk/LICENSES/MIT.txt"
  echo "--- Apache-2.0"
  cat "$openxr_sdk/LICENSES/Apache-2.0.txt"
} >"$stage/LICENSES/rust-crates.txt"

(cd "$target_dir/dist" && zip -q -r "$name.zip" "$name")
echo "build-windows: built $exe and $target_dir/dist/$name.zip in $(($(date +%s) - started)) s" >&2
