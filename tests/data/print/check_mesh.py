"""Reads a print file (STL or 3MF) with trimesh and prints, as one JSON object, what a slicer needs of it.

Usage: check_mesh.py FILE
Run under the venv scripts/mesh-checker.sh installs. tests/print.rs holds
the numbers to what the heights imply; this script judges nothing itself,
so that the reading and the arithmetic stay independent of the writer.
"""
import json
import sys

import trimesh


def main(path):
    # process=True merges vertices at the same place (an STL lists every
    # triangle's corners on their own), as a slicer does.
    loaded = trimesh.load(path, force="mesh", process=True)
    mesh = loaded if isinstance(loaded, trimesh.Trimesh) else loaded.dump(concatenate=True)
    lower, upper = mesh.bounds.tolist()
    units = getattr(mesh, "units", None)
    report = {
        "file": path,
        "units": units,
        "vertices": int(len(mesh.vertices)),
        "triangles": int(len(mesh.faces)),
        "watertight": bool(mesh.is_watertight),
        "winding_consistent": bool(mesh.is_winding_consistent),
        "is_volume": bool(mesh.is_volume),
        "volume": float(mesh.volume),
        "area": float(mesh.area),
        "euler_number": int(mesh.euler_number),
        "bodies": int(len(mesh.split(only_watertight=False))),
        "degenerate_triangles": int((mesh.area_faces <= 0).sum()),
        "bounds_min": lower,
        "bounds_max": upper,
    }
    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: check_mesh.py FILE")
    main(sys.argv[1])
