#!/usr/bin/env bash
# Builds the HoloLens 2 app package on Debian 12:
#   target/dist/holoterrain-<version>-hololens2-arm64.msix   the signed ARM64 package
#   target/dist/holoterrain-<version>-hololens2-test.cer     its certificate (DER), for the
#                                                           device to trust (…-hololens2.cer
#                                                           with a certificate of your own)
#   target/dist/holoterrain-<version>-hololens2-README.txt  how to install them, from
#                                                           packaging/hololens/README-hololens.txt
# The exe is src/bin/holoterrain-packaged.rs for an ARM64 UWP target, with the
# Khronos OpenXR loader linked in. See docs/hololens.md, "On the device".
#
# The library and the exe are linted while they compile (Debian's
# clippy-driver as cargo's workspace wrapper, warnings denied), so the
# HoloLens-only code is held to the same lints as the rest.
#
# Usage: scripts/build-hololens.sh [--pfx FILE]
#   --pfx FILE   sign with this PKCS#12 certificate and key (password in
#                HOLOTERRAIN_PFX_PASSWORD, empty if unset); the manifest's
#                Publisher becomes its subject. Without it the project's test
#                certificate signs, made once in
#                ${XDG_DATA_HOME:-~/.local/share}/holoterrain/hololens-test-certificate/.
#
# Environment:
#   HOLOTERRAIN_HOLOLENS_CACHE  the toolchain cache (default
#                               /var/cache/holoterrain/hololens): a Python venv
#                               with zig and openappx, the windowsapp import
#                               library, the target spec, zig's cache. Cargo's
#                               target directory is the one the cross builds
#                               share (scripts/cross-target-dir.sh).
#
# As root it installs what it needs (Debian packages; the pinned PyPI
# packages into the cache's venv); as another user it names what is missing.
# Warnings are errors. Only Debian packages, PyPI and crates.io are used.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
tools_dir=$repo/scripts/hololens

pfx=""
while [ $# -gt 0 ]; do
  case $1 in
    --pfx) [ $# -ge 2 ] || { echo "error: --pfx needs a file" >&2; exit 2; }; pfx=$2; shift 2 ;;
    *) echo "error: unknown argument $1 (usage: scripts/build-hololens.sh [--pfx FILE])" >&2; exit 2 ;;
  esac
done
if [ -n "$pfx" ] && [ ! -r "$pfx" ]; then
  echo "error: --pfx $pfx: no such readable file" >&2
  exit 2
fi

target=aarch64-uwp-windows-gnullvm
cache=${HOLOTERRAIN_HOLOLENS_CACHE:-/var/cache/holoterrain/hololens}
venv=$cache/tools
# Pinned: the versions this build was made and checked with.
zig_version=0.17.1        # PyPI ziglang: zig's clang and mingw-w64's ARM64 CRT (UCRT)
openappx_version=0.7.0    # PyPI openappx: packs the .msix with its block map
osslsigncode_min=2.7      # the first osslsigncode that signs APPX/MSIX packages
llvm_bin=/usr/lib/llvm-14/bin
osslsigncode_ok() {
  command -v osslsigncode >/dev/null &&
    printf '%s\n' "$osslsigncode_min" "$(osslsigncode --version 2>/dev/null | sed -n '1s/^osslsigncode \([0-9.]*\).*/\1/p')" |
    sort -V -C
}
pip_ok() {
  [ -x "$venv/bin/python" ] &&
    [ "$("$venv/bin/python" -m pip show ziglang 2>/dev/null | sed -n 's/^Version: //p')" = "$zig_version" ] &&
    [ "$("$venv/bin/python" -m pip show openappx 2>/dev/null | sed -n 's/^Version: //p')" = "$openappx_version" ]
}
# The Debian packages (scripts/install-deps.sh hololens names them and why).
scripts/install-deps.sh hololens
if [ "$(id -u)" -ne 0 ]; then
  problems=()
  osslsigncode_ok || problems+=("osslsigncode >= $osslsigncode_min is missing (Debian 12: bookworm-backports has 2.9; Debian 13 has it)")
  pip_ok || problems+=("no venv with ziglang==$zig_version and openappx==$openappx_version at $venv (python3 -m venv $venv && $venv/bin/pip install ziglang==$zig_version openappx==$openappx_version, or run this script once as root)")
  if [ ${#problems[@]} -gt 0 ]; then
    echo "error: $(IFS=';'; echo "${problems[*]}" | sed 's/;/; /g')" >&2
    exit 1
  fi
elif ! pip_ok; then
  echo "build-hololens: installing ziglang==$zig_version openappx==$openappx_version into $venv" >&2
  mkdir -p "$cache"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    "ziglang==$zig_version" "openappx==$openappx_version"
fi

# osslsigncode: the host's when it is new enough, else (as root) the one in
# the project's Debian trixie chroot (scripts/wine-chroot.sh), which has 2.9.
sign_tool=(osslsigncode)
if ! osslsigncode_ok; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "error: osslsigncode >= $osslsigncode_min is missing" >&2
    exit 1
  fi
  echo "build-hololens: osslsigncode >= $osslsigncode_min not on this machine; using the trixie chroot's" >&2
  scripts/wine-chroot.sh prepare
  sign_tool=(scripts/wine-chroot.sh run --bind "$repo" --bind "$cache" -- osslsigncode)
fi

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
dist=$repo/target/dist
name=holoterrain-$version-hololens2
stage=$repo/target/hololens/package
rm -rf "$stage" "$dist/$name-arm64.msix" "$dist/$name-test.cer" "$dist/$name.cer" "$dist/$name-README.txt"
mkdir -p "$stage/Assets" "$dist"
# The logos, by the host's toolchain (before RUSTC is pointed at Debian's).
cargo run --quiet --release --locked --example hololens_logos -- "$stage/Assets"

export HOLOTERRAIN_HOLOLENS_PYTHON=$venv/bin/python
export HOLOTERRAIN_LLVM_BIN=$llvm_bin
export ZIG_GLOBAL_CACHE_DIR=$cache/zig-cache ZIG_LOCAL_CACHE_DIR=$cache/zig-cache
started=$(date +%s)

# The windowsapp umbrella import library and the target spec that links it first.
python3 "$tools_dir/windowsapp.py" /usr/x86_64-w64-mingw32/lib/libwindowsapp.a "$llvm_bin" "$cache/windowsapp"
mkdir -p "$cache/spec"
RUSTC_BOOTSTRAP=1 /usr/bin/rustc -Z unstable-options --print target-spec-json --target aarch64-pc-windows-gnullvm |
  python3 "$tools_dir/target_spec.py" "$cache/windowsapp/libwindowsapp.a" "$cache/spec/$target.json"

# Debian's toolchain, not rustup's (first on PATH, and without -Zbuild-std).
# RUSTC_BOOTSTRAP lets this stable compiler take the unstable flags.
export RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1
target_env=${target//-/_}
export "CC_$target_env=$tools_dir/zig-gcc" "CXX_$target_env=$tools_dir/zig-g++"
export "AR_$target_env=$llvm_bin/llvm-ar"
export "CMAKE_TOOLCHAIN_FILE_$target_env=$tools_dir/toolchain.cmake"
source "$repo/scripts/cross-target-dir.sh"
target_dir=$(cross_target_dir)
# Debian's clippy-driver (that of rustc-web) lints the workspace's crates as
# they compile; CLIPPY_ARGS is what `cargo clippy -- -D warnings` hands it.
RUSTC_WORKSPACE_WRAPPER=/usr/bin/clippy-driver \
  CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" \
  /usr/bin/cargo build --release --locked --bin holoterrain-packaged \
  --target "$cache/spec/$target.json" -Zbuild-std=std,panic_abort -Zjson-target-spec \
  --target-dir "$target_dir" \
  --config "target.$target.linker='$tools_dir/zig-gcc'" \
  --config "target.$target.rustflags=['-D', 'warnings']"
built_exe=$target_dir/$target/release/holoterrain-packaged.exe

# The app container flag, which zig's linker cannot set, in the copy packed.
cp "$built_exe" "$stage/holoterrain.exe"
python3 "$tools_dir/msix.py" set-appcontainer "$stage/holoterrain.exe"
# The licence of the font built into the exe (the labels' DejaVu Sans Bold).
mkdir -p "$stage/LICENSES"
cp src/render/font/DejaVu-LICENSE.txt "$stage/LICENSES/DejaVu-fonts.txt"

# The certificate: the user's, or the test one made once and kept.
if [ -n "$pfx" ]; then
  pfx_password=${HOLOTERRAIN_PFX_PASSWORD:-}
  cer=$dist/$name.cer
else
  certificate_dir=${XDG_DATA_HOME:-$HOME/.local/share}/holoterrain/hololens-test-certificate
  pfx=$certificate_dir/test.pfx
  pfx_password=""
  cer=$dist/$name-test.cer
  if [ ! -f "$pfx" ]; then
    echo "build-hololens: making the test certificate in $certificate_dir" >&2
    mkdir -p -m 700 "$certificate_dir"
    part=$(mktemp -d "$certificate_dir/new.XXXXXX")
    openssl req -x509 -newkey rsa:3072 -sha256 -days 3650 -nodes \
      -subj "/CN=holoterrain test certificate" \
      -addext "basicConstraints=critical,CA:FALSE" \
      -addext "keyUsage=critical,digitalSignature" \
      -addext "extendedKeyUsage=codeSigning" \
      -keyout "$part/key.pem" -out "$part/cert.pem" 2>"$part/openssl.log" ||
      { cat "$part/openssl.log" >&2; exit 1; }
    openssl pkcs12 -export -passout pass: -inkey "$part/key.pem" -in "$part/cert.pem" -out "$part/test.pfx"
    mv "$part/test.pfx" "$pfx"
    rm -rf "$part"
  fi
fi
certificate_pem=$(openssl pkcs12 -in "$pfx" -passin "pass:$pfx_password" -nokeys -clcerts 2>/dev/null |
  openssl x509) || { echo "error: cannot read the certificate in $pfx (wrong HOLOTERRAIN_PFX_PASSWORD?)" >&2; exit 1; }
# As Windows writes a Publisher: most specific first, ", " between.
publisher=$(openssl x509 -noout -subject -nameopt RFC2253,sep_comma_plus_space <<<"$certificate_pem" |
  sed 's/^subject=//')
certificate_file=$repo/target/hololens/certificate.pem
printf '%s\n' "$certificate_pem" >"$certificate_file"
openssl x509 -outform DER -in "$certificate_file" -out "$cer"

python3 "$tools_dir/msix.py" manifest manifests/hololens/Package.appxmanifest \
  "$stage/AppxManifest.xml" --version "$version.0" --publisher "$publisher"
python3 "$tools_dir/msix.py" exe "$stage/holoterrain.exe" \
  --windowsapp "$cache/windowsapp/windowsapp-exports.txt" --allowed "$tools_dir/allowed-imports.txt"

unsigned=$repo/target/hololens/unsigned.msix
signed=$repo/target/hololens/signed.msix
rm -f "$unsigned" "$signed"
# openappx takes EntryPoint="holoterrain.App" for a managed app's class and
# wants its .winmd; for a native exe it is only a label, as in Microsoft's
# native OpenXR samples. That is the one layout warning accepted: any other
# stops the build.
pack_warnings=$("$venv/bin/openappx" pack --allow-missing --root "$stage" --out "$unsigned" 2>&1 >/dev/null |
  grep -v '^warning: EntryPoint="holoterrain.App" names an activatable class, but the layout carries no .winmd' || true)
if [ -n "$pack_warnings" ] || [ ! -f "$unsigned" ]; then
  echo "error: openappx pack: $pack_warnings" >&2
  exit 1
fi
"${sign_tool[@]}" sign -pkcs12 "$pfx" -pass "$pfx_password" -h sha256 \
  -in "$unsigned" -out "$signed" >/dev/null
"${sign_tool[@]}" verify -CAfile "$certificate_file" -in "$signed" >/dev/null
python3 "$tools_dir/msix.py" package "$signed" \
  --windowsapp "$cache/windowsapp/windowsapp-exports.txt" --allowed "$tools_dir/allowed-imports.txt"
mv "$signed" "$dist/$name-arm64.msix"
# The owner's guide, naming the files beside it.
sed -e "s/@VERSION@/$version/g" -e "s/@CERTIFICATE@/${cer##*/}/g" \
  packaging/hololens/README-hololens.txt >"$dist/$name-README.txt"
echo "build-hololens: built $dist/$name-arm64.msix and $cer in $(($(date +%s) - started)) s" >&2
