# flamegraph end to end on examples/callgraph: the call tree main ->
# outer -> {a, b} (a does twice b's work) comes out in the folded stacks
# at a ratio near 2 and nested in the SVG; the JSON output is speedscope's
# format; -v shows every stage timing, and with --recorder perf every
# command. perf's recording is read natively as perf writes it (no perf
# script runs, no file), or from a temporary file with --no-stream;
# --perf-script reads a recording through perf script, and both give the
# same call tree.
# ctest: RESOURCE_LOCK cpu
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
cc -O2 -g -o callgraph "$FG_SRC/examples/callgraph/callgraph.c"

check_exit "profile callgraph" 0 flamegraph -v --folded stacks.folded -o graph.svg -- ./callgraph 1500
cp err verbose.txt
for stage in record read collapse render; do
	check_contains "-v timing line for $stage" verbose.txt "timing: $stage took [0-9.]+ s"
done
check_exit "profile callgraph with perf" 0 flamegraph --recorder perf -v --folded perf.folded -o perf.svg -- ./callgraph 500
check_contains "-v shows perf record with dwarf,65528 and a sized buffer, attached, streaming" err "running: .*perf record -F 997 --call-graph dwarf,65528 -g -m [0-9]+K -o - -D -1 --control=fifo:CTL,ACK -p PID"
check_not_contains "-v: no perf script runs" err "perf script"
check_contains "perf: main calls a" perf.folded "main;outer;a [0-9]+$"
# --no-stream: a temporary perf.data, capped at half the free space
check_exit "--no-stream" 0 flamegraph --recorder perf -v --no-stream --folded nostream.folded -o nostream.svg -- ./callgraph 500
check_contains "--no-stream: a file and a cap" err "running: .*perf record -F 997 --call-graph dwarf,65528 -g -m [0-9]+K --max-size=[0-9]+K -o /.*/\.flamegraph-perf\.[^ ]+ -D -1 --control=fifo:CTL,ACK -p PID"
check_contains "--no-stream: read after the recording" err "timing: read took [0-9.]+ s"
check_contains "--no-stream: main calls a" nostream.folded "main;outer;a [0-9]+$"
check_exit "--stream --no-stream" 1 flamegraph --stream --no-stream -- ./callgraph 100
check_contains "--stream --no-stream: one of the two" err "give only one of --stream and --no-stream"

# the counts are cpu-clock periods in ns: a sample at 997 Hz weighs about
# 1e9 / 997 of them
na=$(awk '/main;outer;a [0-9]+$/ { s += $NF } END { printf "%d\n", s / 1003009 }' stacks.folded)
nb=$(awk '/main;outer;b [0-9]+$/ { s += $NF } END { printf "%d\n", s / 1003009 }' stacks.folded)
[ "$na" -gt 100 ] && pass || fail "main;outer;a has only $na samples (1.5 s at 997 Hz: some 1000)"
[ "$nb" -gt 50 ] && pass || fail "main;outer;b has only $nb samples (1.5 s at 997 Hz: some 500)"
ratio=$(awk -v a="$na" -v b="$nb" 'BEGIN { printf "%.2f", b ? a / b : 0 }')
# (2.0 on an idle machine; beside a busy core the timer's samples favour
# a: 1.99-2.75 measured with a spinner on the other core)
awk -v r="$ratio" 'BEGIN { exit !(r >= 1.5 && r <= 3.0) }' && pass ||
	fail "a/b sample ratio $ratio is not near 2 ($na vs $nb)"
echo "a/b ratio: $ratio ($na / $nb)"

# the same recording through perf script: --perf-script gives what
# `perf script | flamegraph-collapse-perf` gives (perf's own unwinding)
check_exit "keep the recording" 0 flamegraph --perfdata-out kept.data --format folded -o native.folded \
	-- ./callgraph 500
check_contains "native: main calls a" native.folded "main;outer;a [0-9]+$"
check_exit "--perf-script" 0 flamegraph -v --perf-script --perfdata kept.data --format folded -o script.folded
check_contains "--perf-script: perf script runs" err "running: .*perf script -i kept.data"
check_contains "--perf-script: timed as script" err "timing: script took [0-9.]+ s"
perf script -i kept.data 2>/dev/null | flamegraph-collapse-perf > text.folded
check_same_file "--perf-script: perf script's stacks" text.folded script.folded

# the SVG has a inside outer inside main (by sample coordinates)
"$FG_SRC/tests/tools/svg-frames" graph.svg > frames.txt || fail "svg-frames rejects graph.svg"
python3 - frames.txt <<'PY' && pass || fail "frames are not nested main > outer > {a, b}"
import sys
fr = {}
for line in open(sys.argv[1]):
    name, x, w = line.rstrip("\n").split("\t")
    fr.setdefault(name, []).append((float(x), float(w)))
def inside(child, parent):
    return all(any(px <= cx and cx + cw <= px + pw + 1e-9 for px, pw in fr[parent])
               for cx, cw in fr[child])
ok = all(n in fr for n in ("main", "outer", "a", "b"))
ok = ok and inside("a", "outer") and inside("b", "outer") and inside("outer", "main")
sys.exit(0 if ok else 1)
PY

# speedscope JSON from the same kind of run
check_exit "--format json" 0 flamegraph --format json -o prof.json -F 499 -- ./callgraph 500
python3 - prof.json <<'PY' && pass || fail "prof.json is not a speedscope profile with main/outer/a"
import json, sys
d = json.load(open(sys.argv[1]))
names = [f["name"] for f in d["shared"]["frames"]]
p = d["profiles"][0]
assert d["$schema"].startswith("https://www.speedscope.app/")
assert p["type"] == "sampled" and len(p["samples"]) == len(p["weights"])
assert {"main", "outer", "a"} <= set(names)
assert all(0 <= i < len(names) for s in p["samples"] for i in s)
PY

# --format folded to stdout
check_exit "--format folded -o -" 0 flamegraph --format folded -o - -F 499 -- ./callgraph 300
check_contains "folded on stdout" out "main;outer;a [0-9]+$"
