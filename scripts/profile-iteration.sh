#!/usr/bin/env bash
# Where the time of a demo iteration goes, phase by phase: runs
# examples/demo_iterations on one thread under perf, sampling on its
# cpu-clock (a software clock, so it works in a virtual machine without
# hardware counters, like this project's), and sums the samples by the
# engine function each one falls in, seeing through inlining.
#
# Usage: scripts/profile-iteration.sh [SIDE [ITERATIONS]]   (default 257 20000)
#
# It builds the example with line tables into target/profile, so that the
# release build in target/ is left as it is. Run as root to install perf,
# binutils and python3 if they are missing; as another user it names them.
set -euo pipefail
cd "$(dirname "$0")/.."

side=${1:-257}
iterations=${2:-20000}
if ! [[ $side =~ ^[0-9]+$ && $iterations =~ ^[1-9][0-9]*$ ]] || [ $# -gt 2 ]; then
  echo "error: usage: scripts/profile-iteration.sh [SIDE [ITERATIONS]] (whole numbers, e.g. 257 20000)" >&2
  exit 2
fi
scripts/install-deps.sh profile

binary=target/profile/release/examples/demo_iterations
CARGO_PROFILE_RELEASE_DEBUG=line-tables-only \
  cargo build --quiet --release --example demo_iterations --target-dir target/profile

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rate=20000  # samples a second
# The example checks SIDE itself and says what is wrong in one line.
perf record --quiet -e cpu-clock -F "$rate" -o "$work/perf.data" \
  "$binary" "$side" "$iterations" 1 >/dev/null
perf script -i "$work/perf.data" -F ip,sym,symoff --no-demangle >"$work/samples" 2>/dev/null

python3 - "$binary" "$work/samples" "$side" "$iterations" "$rate" <<'EOF'
"""Sums perf samples by the innermost engine function each falls in."""
import collections
import re
import subprocess
import sys

binary, samples_path, side = sys.argv[1:4]
iterations, rate = int(sys.argv[4]), int(sys.argv[5])

# Engine functions that only carry a step of a phase (a vector's
# arithmetic, a lane's load): a sample there counts for their caller.
# The AVX wrappers are not inlined, so their frame stands for code whose
# own frame was lost: a sample there counts for the line it is at.
HELPERS = {"step", "shaped", "with_avx", "with_instructions"}

addresses = {}
for line in subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout.splitlines():
    parts = line.split()
    if len(parts) == 3:
        addresses[parts[2]] = int(parts[0], 16)

per_address = collections.Counter()
total = 0
for line in open(samples_path):
    total += 1
    match = re.search(r"(\S+)\+0x([0-9a-f]+)", line)
    if match and match.group(1) in addresses:
        per_address[addresses[match.group(1)] + int(match.group(2), 16)] += 1

# addr2line -a -i -f: each address, then its frames innermost first, a
# function line and a file:line line each.
out = subprocess.run(
    ["addr2line", "-a", "-i", "-f", "-C", "-e", binary],
    input="\n".join(hex(address) for address in per_address),
    capture_output=True, text=True, check=True,
).stdout.splitlines()


def short_name(function):
    """`a::b::c<T>` as `c`, `<X as Y>::f` as `f`: the last path segment
    outside any generic arguments."""
    depth, plain = 0, ""
    for char in function:
        depth += char == "<"
        if depth == 0:
            plain += char
        depth -= char == ">"
    return plain.split("::")[-1] or function


frames_of = {}
for line in out:
    if re.fullmatch(r"0x[0-9a-f]+", line):
        frames = frames_of[int(line, 16)] = []
        function = None
    elif function is None:
        function = short_name(line)
    else:
        frames.append((function, line))
        function = None


def engine_frames(frames):
    """The frames in this project's sources, innermost first, as (name,
    file:line), where file:line is where the frame was when sampled or
    called the frame inside it."""
    for function, place in frames:
        if "/src/" in place and "/rustc/" not in place and "/.cargo/" not in place:
            yield function, place.split("/src/")[-1].split(" ")[0]


def is_helper(name, place):
    return name in HELPERS or place.startswith("terrain/lanes.rs")


phases = collections.Counter()
for address, count in per_address.items():
    frames = list(engine_frames(frames_of.get(address, [])))
    inner = next((i for i, (name, place) in enumerate(frames) if not is_helper(name, place)), None)
    if inner is None:
        phases[f"code at {frames[0][1]}" if frames else "(outside the engine)"] += count
        continue
    name = frames[inner][0]
    caller = frames[inner + 1] if inner + 1 < len(frames) else None
    phases[f"{name} ← {caller[0]} ({caller[1]})" if caller else name] += count
phases["(other code: kernel, libraries)"] += total - sum(per_address.values())

# Sampling slows the run down, so shares, not these times, carry over to
# the bench's time of an iteration.
print(f"{side}×{side}, {iterations} iterations on one thread: {total} samples at {rate} Hz, "
      f"{total / rate / iterations * 1e6:.1f} µs an iteration while sampled")
print(f"{'share':>6}  where (innermost engine function ← its caller, and the line of the call)")
for phase, count in phases.most_common():
    share = 100 * count / total
    if share >= 0.3:
        print(f"{share:5.1f}%  {phase}")
EOF
