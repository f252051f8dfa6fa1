#!/usr/bin/env bash
# Measures a shared session on loopback (docs/performance.md, "Shared
# sessions"): how long a command made on one peer takes to reach another
# peer's terrain, through the host; and how long a peer that joins after
# 30 s of growth takes to be level with the host. Three simulators (a host,
# peers A and B) at 60 Hz with tiny images, paced by the wall clock as
# shared runs are; the times come from their reports (Unix milliseconds,
# one machine, one clock).
#
# Usage: scripts/measure-shared.sh [BINARY]   (default: target/release/holoterrain)
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-target/release/holoterrain}
if [ ! -x "$binary" ]; then
  echo "error: $binary is not built: run cargo build --release, or give the binary" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
code=7-guitar-orbit
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sim() { "$binary" sim --resolution 32x24 --rate 60 --every 1000000 "$@"; }

# 1. Peer A air-taps every second; each reseed travels A -> host -> B.
: >"$work/host.txt"
: >"$work/a.txt"
: >"$work/b.txt"
for second in 2 3 4 5 6 7 8 9 10 11; do
  echo "$second.5 airtap right" >>"$work/a.txt"
done
sim --frames 900 --size 129x129 --share "$code" --share-port "$port" --unlisted \
  --script "$work/host.txt" --out "$work/host" 2>"$work/host.log" &
host=$!
sim --frames 840 --join "$code@127.0.0.1:$port" --script "$work/a.txt" --out "$work/a" 2>"$work/a.log" &
sim --frames 840 --join "$code@127.0.0.1:$port" --script "$work/b.txt" --out "$work/b" 2>"$work/b.log" &
wait

# 2. A peer joins after 30 s of growth (a 257x257 demo: 500 iterations).
sim --frames 2400 --share "$code" --share-port "$port" --unlisted \
  --script "$work/host.txt" --out "$work/late-host" 2>"$work/late-host.log" &
sleep 30
sim --frames 300 --join "$code@127.0.0.1:$port" --script "$work/b.txt" --out "$work/late" 2>"$work/late.log"
wait

python3 - "$work" <<'EOF'
import json, statistics, sys
work = sys.argv[1]
report = lambda name: json.load(open(f"{work}/{name}/report.json"))
host, a, b = report("host"), report("a"), report("b")
applied_b = {t["seq"]: t["unix_ms"] for t in b["share"]["timings"]}
ordered = {t["seq"]: t["unix_ms"] for t in host["share"]["timings"]}
# The host's log names who made each command; A is peer 1 or 2.
a_id = a["share"]["peer"]
log = [json.loads(line) for line in open(f"{work}/host/commands.jsonl")]
from_a = [e for e in log if e.get("origin") == {"peer": a_id}]
# Shared numbers count terrain commands only, in the host's order.
terrain = [e for e in log if "seq" in e and not (isinstance(e["command"], dict) and
           set(e["command"]) & {"place", "scale"}) and e["command"] != "reset_placement"]
shared_seq = {id(e): n for n, e in enumerate(terrain)}
sent = a["share"]["sent_unix_ms"]
rows = []
for sent_ms, entry in zip(sent, from_a):
    seq = shared_seq[id(entry)]
    rows.append((ordered[seq] - sent_ms, applied_b[seq] - ordered[seq], applied_b[seq] - sent_ms))
if not rows:
    sys.exit("error: no command of peer A reached the host")
for name, column in (("A sent -> host ordered", 0), ("host ordered -> B applied", 1), ("A sent -> B applied", 2)):
    values = [row[column] for row in rows]
    print(f"{name:28} median {statistics.median(values):5.0f} ms  max {max(values):5.0f} ms  ({len(values)} commands)")
late_report = report("late")
late = late_report["share"]
print(f"{'joiner 30 s late: level in':28} {late['level_after_ms']} ms"
      f"  (it drew {late_report['frames']} frames in {late_report['seconds']:.1f} s,"
      f" render median {late_report['cpu_ms']['render']['median']:.0f} ms)")
EOF
