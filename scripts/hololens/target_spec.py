"""Writes the Rust target spec of the HoloLens 2 build: aarch64-uwp-windows-gnullvm.

Rust's built-in aarch64-pc-windows-gnullvm target (read from the compiler that
builds, so the spec matches its version) with three changes:
- vendor "uwp": std takes its UWP code paths (no APIs an app container lacks);
- the windowsapp import library first on the link line, so every Windows API
  that umbrella library lists binds to the API set or DLL it names;
- no MinGW libraries or CRT objects of rustc's own: zig links mingw-w64's ARM64
  CRT with UCRT, and its link line takes no -nolibc or --unwindlib.

Usage: python3 target_spec.py WINDOWSAPP_LIB OUT_JSON < rustc-print-target-spec-json
"""

import json
import sys


def main() -> None:
    windowsapp_lib, out = sys.argv[1], sys.argv[2]
    spec = json.load(sys.stdin)
    spec["vendor"] = "uwp"
    spec.pop("is-builtin", None)
    spec["metadata"] = {"description": "ARM64 UWP (HoloLens 2), MinGW LLVM ABI", "std": True}
    spec["pre-link-args"] = {"gnu-cc": [windowsapp_lib]}
    spec["late-link-args"] = {}
    spec.pop("crt-objects-fallback", None)
    spec.pop("pre-link-objects-fallback", None)
    spec.pop("linker", None)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(spec, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
