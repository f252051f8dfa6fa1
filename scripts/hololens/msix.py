"""Prepares and checks the HoloLens 2 app package (scripts/build-hololens.sh).

  msix.py set-appcontainer EXE
      Sets IMAGE_DLLCHARACTERISTICS_APPCONTAINER in EXE's PE header (zig's
      linker has no flag for it; Windows starts a UWP app's exe only with it).
  msix.py manifest TEMPLATE OUT --version V --publisher P
      Writes the package manifest: TEMPLATE with Identity's Version and
      Publisher set.
  msix.py exe EXE --windowsapp EXPORTS --allowed ALLOWED
      Checks that EXE is an ARM64 GUI app-container exe whose every import a
      UWP app may make on HoloLens 2 (see allowed-imports.txt).
  msix.py package MSIX --windowsapp EXPORTS --allowed ALLOWED
      Checks a packed (and signed) package: content types, block map hashes,
      the manifest against what the package holds (exe, logos and their
      sizes, architecture), the exe as above, and that the signature's
      certificate subject is the manifest's Publisher.

Each check prints every problem it finds, one a line, and exits 1 if any.
Standard library only, plus `openssl` for the signature's certificate.
"""

import argparse
import base64
import fnmatch
import hashlib
import re
import struct
import subprocess
import sys
import urllib.parse
import xml.etree.ElementTree as ET
import zipfile

MACHINE_ARM64 = 0xAA64
SUBSYSTEM_WINDOWS_GUI = 2
DLLCHARACTERISTICS_APPCONTAINER = 0x1000
APPX_NS = "{http://schemas.microsoft.com/appx/manifest/foundation/windows10}"
UAP_NS = "{http://schemas.microsoft.com/appx/manifest/uap/windows10}"
BLOCKMAP_NS = "{http://schemas.microsoft.com/appx/2010/blockmap}"
CONTENT_TYPES_NS = "{http://schemas.openxmlformats.org/package/2006/content-types}"
# The package's own files, which the block map does not list.
FOOTPRINT = {"[Content_Types].xml", "AppxBlockMap.xml", "AppxSignature.p7x",
             "AppxMetadata/CodeIntegrity.cat"}
BLOCK_SIZE = 64 * 1024
# The pixel size each logo must have at scale 100 (the appx manifest schema's
# uap:VisualElements, uap:SplashScreen and Properties/Logo).
LOGO_SIZES = {
    "Logo": (50, 50),
    "Square150x150Logo": (150, 150),
    "Square44x44Logo": (44, 44),
    "SplashScreen": (620, 300),
}


class Pe:
    """The parts of a PE image the checks read."""

    def __init__(self, data: bytes):
        if data[:2] != b"MZ":
            raise ValueError("not a PE file (no MZ header)")
        self.data = data
        self.pe = struct.unpack_from("<I", data, 0x3C)[0]
        if data[self.pe:self.pe + 4] != b"PE\0\0":
            raise ValueError("not a PE file (no PE signature)")
        self.machine, self.sections_count = struct.unpack_from("<HH", data, self.pe + 4)
        optional_size = struct.unpack_from("<H", data, self.pe + 20)[0]
        self.optional = self.pe + 24
        if struct.unpack_from("<H", data, self.optional)[0] != 0x20B:
            raise ValueError("not a PE32+ image")
        self.subsystem, self.dll_characteristics = struct.unpack_from(
            "<HH", data, self.optional + 68)
        self.sections = []
        table = self.optional + optional_size
        for i in range(self.sections_count):
            virtual_size, virtual_address, raw_size, raw_pointer = struct.unpack_from(
                "<IIII", data, table + 40 * i + 8)
            self.sections.append((virtual_address, max(virtual_size, raw_size), raw_pointer))

    def offset(self, rva: int) -> int:
        for virtual_address, size, raw_pointer in self.sections:
            if virtual_address <= rva < virtual_address + size:
                return rva - virtual_address + raw_pointer
        raise ValueError(f"RVA {rva:#x} is in no section")

    def cstring(self, rva: int) -> str:
        start = self.offset(rva)
        return self.data[start:self.data.index(b"\0", start)].decode("ascii")

    def imports(self) -> list[tuple[str, str]]:
        """(dll, function) pairs, dll in lower case; imports by ordinal as '#N'."""
        directory_rva = struct.unpack_from("<I", self.data, self.optional + 112 + 8)[0]
        pairs = []
        descriptor = self.offset(directory_rva) if directory_rva else None
        while descriptor is not None:
            lookup, _, _, name, thunks = struct.unpack_from("<IIIII", self.data, descriptor)
            if name == 0:
                break
            dll = self.cstring(name).lower()
            entry = self.offset(lookup or thunks)
            while (value := struct.unpack_from("<Q", self.data, entry)[0]) != 0:
                if value >> 63:
                    pairs.append((dll, f"#{value & 0xFFFF}"))
                else:
                    # A hint (2 bytes), then the name.
                    pairs.append((dll, self.cstring((value & 0x7FFFFFFF) + 2)))
                entry += 8
            descriptor += 20
        return pairs

    def set_appcontainer(self) -> bytes:
        """The image with the app container flag set and the checksum cleared
        (an exe's checksum is not checked; a stale one would be wrong)."""
        data = bytearray(self.data)
        struct.pack_into("<H", data, self.optional + 70,
                         self.dll_characteristics | DLLCHARACTERISTICS_APPCONTAINER)
        struct.pack_into("<I", data, self.optional + 64, 0)
        return bytes(data)


def read_windowsapp(path: str) -> dict[str, set[str]]:
    """windowsapp-exports.txt: module -> functions."""
    modules: dict[str, set[str]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            module, function = line.split()
            modules.setdefault(module.lower(), set()).add(function)
    return modules


def read_allowed(path: str) -> list[tuple[str, str]]:
    """allowed-imports.txt: (module glob, rule) pairs in file order."""
    rules = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                module, rule = line.split()[:2]
                rules.append((module.lower(), rule))
    return rules


def import_allowed(dll: str, function: str, windowsapp: dict[str, set[str]],
                   rules: list[tuple[str, str]]) -> bool:
    for module, rule in rules:
        if not fnmatch.fnmatchcase(dll, module):
            continue
        if rule == "windowsapp":
            return function in windowsapp.get(dll, set())
        if rule == "*":
            return True
        return function in rule.split(",")
    return False


def check_exe(data: bytes, windowsapp_path: str, allowed_path: str) -> list[str]:
    try:
        pe = Pe(data)
    except (ValueError, struct.error) as error:
        return [f"exe: {error}"]
    problems = []
    if pe.machine != MACHINE_ARM64:
        problems.append(f"exe: machine {pe.machine:#06x}, not ARM64 ({MACHINE_ARM64:#06x})")
    if pe.subsystem != SUBSYSTEM_WINDOWS_GUI:
        problems.append(f"exe: subsystem {pe.subsystem}, not the Windows GUI subsystem "
                        f"({SUBSYSTEM_WINDOWS_GUI}): a console would open")
    if not pe.dll_characteristics & DLLCHARACTERISTICS_APPCONTAINER:
        problems.append("exe: the app container flag (IMAGE_DLLCHARACTERISTICS_APPCONTAINER) is not set")
    windowsapp = read_windowsapp(windowsapp_path)
    rules = read_allowed(allowed_path)
    imports = pe.imports()
    if not imports:
        problems.append("exe: no imports found")
    for dll, function in imports:
        if not import_allowed(dll, function, windowsapp, rules):
            problems.append(f"exe: imports {dll}!{function}, which a UWP app on HoloLens 2 "
                            f"may not (not in {allowed_path})")
    return problems


def png_size(data: bytes) -> tuple[int, int] | None:
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", data[16:24])


def check_content_types(package: zipfile.ZipFile) -> list[str]:
    types = ET.fromstring(package.read("[Content_Types].xml"))
    defaults = {d.get("Extension", "").lower() for d in types.iter(CONTENT_TYPES_NS + "Default")}
    overrides = {urllib.parse.unquote(o.get("PartName", "")).lower()
                 for o in types.iter(CONTENT_TYPES_NS + "Override")}
    problems = []
    for name in package.namelist():
        if name == "[Content_Types].xml":
            continue
        extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
        if "/" + name.lower() not in overrides and extension not in defaults:
            problems.append(f"content types: no type for {name}")
    return problems


def check_block_map(package: zipfile.ZipFile) -> list[str]:
    block_map = ET.fromstring(package.read("AppxBlockMap.xml"))
    if block_map.get("HashMethod") != "http://www.w3.org/2001/04/xmlenc#sha256":
        return [f"block map: hash method {block_map.get('HashMethod')}, not SHA-256"]
    problems = []
    listed = set()
    for entry in block_map.iter(BLOCKMAP_NS + "File"):
        name = entry.get("Name", "").replace("\\", "/")
        listed.add(name)
        try:
            content = package.read(name)
        except KeyError:
            problems.append(f"block map: lists {name}, which the package lacks")
            continue
        if int(entry.get("Size", "-1")) != len(content):
            problems.append(f"block map: {name} is {len(content)} bytes, the map says {entry.get('Size')}")
        blocks = list(entry.iter(BLOCKMAP_NS + "Block"))
        expected_blocks = (len(content) + BLOCK_SIZE - 1) // BLOCK_SIZE
        if len(blocks) != expected_blocks:
            problems.append(f"block map: {name} has {len(blocks)} blocks, needs {expected_blocks}")
        for index, block in enumerate(blocks):
            chunk = content[index * BLOCK_SIZE:(index + 1) * BLOCK_SIZE]
            digest = base64.b64encode(hashlib.sha256(chunk).digest()).decode("ascii")
            if block.get("Hash") != digest:
                problems.append(f"block map: block {index} of {name} does not match its hash")
    for name in package.namelist():
        if name not in FOOTPRINT and name not in listed:
            problems.append(f"block map: does not list {name}")
    return problems


def signature_subject(signature: bytes) -> str:
    """The signing certificate's subject, as a manifest's Publisher is written."""
    if signature[:4] != b"PKCX":
        raise ValueError("AppxSignature.p7x does not start with PKCX")
    certificates = subprocess.run(
        ["openssl", "pkcs7", "-inform", "DER", "-print_certs"],
        input=signature[4:], capture_output=True, check=True).stdout
    subjects = subprocess.run(
        ["openssl", "x509", "-noout", "-subject", "-nameopt", "RFC2253,sep_comma_plus_space"],
        input=certificates, capture_output=True, check=True).stdout.decode()
    return subjects.strip().removeprefix("subject=")


def check_package(path: str, windowsapp_path: str, allowed_path: str) -> list[str]:
    try:
        package = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as error:
        return [f"package: {error}"]
    with package:
        names = set(package.namelist())
        missing = [n for n in ("[Content_Types].xml", "AppxBlockMap.xml", "AppxManifest.xml",
                               "AppxSignature.p7x") if n not in names]
        if missing:
            return [f"package: lacks {', '.join(missing)}"]
        problems = check_content_types(package) + check_block_map(package)
        manifest = ET.fromstring(package.read("AppxManifest.xml"))
        identity = manifest.find(APPX_NS + "Identity")
        if identity is None or identity.get("ProcessorArchitecture") != "arm64":
            problems.append("manifest: Identity's ProcessorArchitecture is not arm64")
        applications = manifest.findall(f"{APPX_NS}Applications/{APPX_NS}Application")
        if len(applications) != 1:
            problems.append(f"manifest: {len(applications)} applications, expected 1")
        for application in applications:
            executable = application.get("Executable", "").replace("\\", "/")
            if executable not in names:
                problems.append(f"manifest: its Executable {executable} is not in the package")
            else:
                problems += check_exe(package.read(executable), windowsapp_path, allowed_path)
        logos = {"Logo": manifest.findtext(f"{APPX_NS}Properties/{APPX_NS}Logo")}
        for visual in manifest.iter(UAP_NS + "VisualElements"):
            logos["Square150x150Logo"] = visual.get("Square150x150Logo")
            logos["Square44x44Logo"] = visual.get("Square44x44Logo")
            splash = visual.find(UAP_NS + "SplashScreen")
            logos["SplashScreen"] = None if splash is None else splash.get("Image")
        for role, (width, height) in LOGO_SIZES.items():
            logo = logos.get(role)
            if not logo:
                problems.append(f"manifest: no {role}")
                continue
            logo = logo.replace("\\", "/")
            if logo not in names:
                problems.append(f"manifest: its {role} {logo} is not in the package")
            elif png_size(package.read(logo)) != (width, height):
                problems.append(f"manifest: its {role} {logo} is {png_size(package.read(logo))}, "
                                f"not a {width}x{height} PNG")
        try:
            subject = signature_subject(package.read("AppxSignature.p7x"))
        except (ValueError, subprocess.CalledProcessError) as error:
            problems.append(f"signature: cannot read its certificate: {error}")
        else:
            publisher = identity.get("Publisher") if identity is not None else None
            if subject != publisher:
                problems.append(f"signature: certificate subject {subject!r} is not the "
                                f"manifest's Publisher {publisher!r}")
        return problems


def write_manifest(template: str, out: str, version: str, publisher: str) -> None:
    with open(template, encoding="utf-8") as f:
        text = f.read()
    identity = re.search(r"<Identity\b[^>]*/>", text)
    if identity is None:
        sys.exit(f"msix.py: {template} has no Identity element")
    escaped = (publisher.replace("&", "&amp;").replace('"', "&quot;")
               .replace("<", "&lt;").replace(">", "&gt;"))
    element = re.sub(r'Version="[^"]*"', f'Version="{version}"', identity.group(0))
    element = re.sub(r'Publisher="[^"]*"', lambda _: f'Publisher="{escaped}"', element)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text[:identity.start()] + element + text[identity.end():])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    appcontainer = commands.add_parser("set-appcontainer")
    appcontainer.add_argument("exe")
    manifest = commands.add_parser("manifest")
    manifest.add_argument("template")
    manifest.add_argument("out")
    manifest.add_argument("--version", required=True)
    manifest.add_argument("--publisher", required=True)
    for name in ("exe", "package"):
        check = commands.add_parser(name)
        check.add_argument("path")
        check.add_argument("--windowsapp", required=True)
        check.add_argument("--allowed", required=True)
    args = parser.parse_args()
    if args.command == "set-appcontainer":
        with open(args.exe, "rb") as f:
            data = Pe(f.read()).set_appcontainer()
        with open(args.exe, "wb") as f:
            f.write(data)
        return 0
    if args.command == "manifest":
        write_manifest(args.template, args.out, args.version, args.publisher)
        return 0
    if args.command == "exe":
        with open(args.path, "rb") as f:
            problems = check_exe(f.read(), args.windowsapp, args.allowed)
    else:
        problems = check_package(args.path, args.windowsapp, args.allowed)
    for problem in problems:
        print(f"{args.path}: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
