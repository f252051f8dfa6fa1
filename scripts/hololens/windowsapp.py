"""Makes the ARM64 windowsapp umbrella import library and its list of exports.

The functions a UWP app may import, and the API set or DLL each binds to, are
those of mingw-w64's windowsapp library (Microsoft's WindowsApp.lib, "APIs
present on all Windows devices"): read here from Debian's x86-64 build of it
(mingw-w64-x86-64-dev), which holds one import member per function. For each
module this writes a .def file, turns it into an ARM64 import library with
llvm-dlltool, and merges them into OUT_DIR/libwindowsapp.a; the pairs go to
OUT_DIR/windowsapp-exports.txt ("module function" a line, sorted), which the
package check reads.

Usage: python3 windowsapp.py MINGW_X86_64_LIBWINDOWSAPP LLVM_BIN_DIR OUT_DIR
"""

import os
import re
import subprocess
import sys

# "libapi-ms-win-core-synch-l1-2-0s00012.o:" -> api-ms-win-core-synch-l1-2-0
MEMBER = re.compile(r"^lib(?P<module>.+)s\d+\.o:$")


def exports_by_module(nm: str, library: str) -> dict[str, set[str]]:
    listing = subprocess.run(
        [nm, library], check=True, capture_output=True, text=True
    ).stdout
    modules: dict[str, set[str]] = {}
    module = None
    for line in listing.splitlines():
        header = MEMBER.match(line)
        if header:
            module = header.group("module") + ".dll"
            continue
        if line.endswith(".o:"):
            module = None
            continue
        fields = line.split()
        if module and len(fields) == 3 and fields[1] == "T":
            modules.setdefault(module, set()).add(fields[2])
    if not modules:
        sys.exit(f"windowsapp.py: no import members in {library}")
    return modules


def main() -> None:
    library, llvm_bin, out = sys.argv[1], sys.argv[2], sys.argv[3]
    defs = os.path.join(out, "defs")
    os.makedirs(defs, exist_ok=True)
    modules = exports_by_module(os.path.join(llvm_bin, "llvm-nm"), library)
    mri = ["CREATE " + os.path.join(out, "libwindowsapp.a.part")]
    for module in sorted(modules):
        stem = os.path.join(defs, module[: -len(".dll")])
        with open(stem + ".def", "w", encoding="utf-8") as f:
            f.write(f"LIBRARY {module}\nEXPORTS\n")
            f.writelines(f"{name}\n" for name in sorted(modules[module]))
        subprocess.run(
            [os.path.join(llvm_bin, "llvm-dlltool"), "-m", "arm64",
             "-d", stem + ".def", "-l", stem + ".a"],
            check=True,
        )
        mri.append("ADDLIB " + stem + ".a")
    mri += ["SAVE", "END"]
    subprocess.run(
        [os.path.join(llvm_bin, "llvm-ar"), "-M"],
        input="\n".join(mri) + "\n", text=True, check=True,
    )
    os.replace(os.path.join(out, "libwindowsapp.a.part"), os.path.join(out, "libwindowsapp.a"))
    with open(os.path.join(out, "windowsapp-exports.txt"), "w", encoding="utf-8") as f:
        for module in sorted(modules):
            f.writelines(f"{module} {name}\n" for name in sorted(modules[module]))


if __name__ == "__main__":
    main()
