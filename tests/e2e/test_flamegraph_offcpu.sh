# Off-CPU and hot/cold graphs with real perf: examples/offcpu sleeps about
# 300 ms in sleep_phase and computes about 300 ms in compute_phase.
# --off-cpu gives sleep_phase about 300 000 us and compute_phase almost
# nothing; --hot-cold shows both, under [off-cpu] and [on-cpu], the first
# in blues. A user without access to the scheduler tracepoints gets the
# reason and the fix before anything runs.
# ctest: RESOURCE_LOCK cpu
if ! perf record -q --no-bpf-event -e sched:sched_switch -c 1 -o perf.probe -- true 2>/dev/null; then
	echo "perf cannot record scheduler events here (not root, or no tracefs)" >&2
	exit 77
fi
rm -f perf.probe
cc -O2 -g -fno-omit-frame-pointer -o offcpu "$FG_SRC/examples/offcpu/offcpu.c"

# inclusive microseconds of function $2 in folded file $1, under root
# pattern $3 (default: any)
incl() {
	awk -v fn="$2" -v under="${3:-}" '
		{ n = split($1, f, ";"); if (under != "" && f[2] != under) next
		  for (i = 1; i <= n; i++) if (f[i] == fn) { s += $NF; break } }
		END { print s + 0 }' "$1"
}
# the fill colour of the widest frame named $2 in SVG $1: "r g b"
fill_of() {
	grep -o "<title>$2 ([^<]*</title><rect[^>]*fill=\"rgb([0-9]*,[0-9]*,[0-9]*)\" fg:x=\"[0-9]*\" fg:w=\"[0-9]*\"" "$1" |
		sed -E 's/.*rgb\(([0-9]+),([0-9]+),([0-9]+)\).*fg:w="([0-9]+)"/\4 \1 \2 \3/' |
		sort -n -r | head -n 1 | cut -d' ' -f2-
}

check_exit "--off-cpu" 0 flamegraph --off-cpu -o off.svg --folded off.folded -- ./offcpu 300 300
sleep_us=$(incl off.folded sleep_phase)
compute_us=$(incl off.folded compute_phase)
awk -v s="$sleep_us" 'BEGIN { exit !(s >= 280000 && s <= 600000) }' &&
	pass || fail "--off-cpu: sleep_phase has $sleep_us us off CPU, not about 300 000"
awk -v c="$compute_us" 'BEGIN { exit !(c <= 15000) }' &&
	pass || fail "--off-cpu: compute_phase has $compute_us us off CPU, not almost none"
check_contains "--off-cpu: the wait is in nanosleep, under sleep_phase" off.folded \
	"^offcpu;.*;main;sleep_phase;.*schedule"
check_contains "--off-cpu: the summary gives the waits" err \
	"wrote off.svg \([0-9]+ waits?, [0-9.]+ ms off CPU, [0-9]+ lost"
check_contains "--off-cpu: the graph counts microseconds" off.svg "<title>sleep_phase \([0-9,]+ us, "
check_contains "--off-cpu: its title" off.svg ">Off-CPU Time Flame Graph<"
check_not_contains "--off-cpu: no 'few samples' advice for one long wait" err "raise the frequency"

check_exit "--hot-cold" 0 flamegraph --hot-cold -o hc.svg --folded hc.folded --format svg -- ./offcpu 300 300
cold_sleep=$(incl hc.folded sleep_phase "[off-cpu]")
hot_compute=$(incl hc.folded compute_phase "[on-cpu]")
cold_compute=$(incl hc.folded compute_phase "[off-cpu]")
hot_sleep=$(incl hc.folded sleep_phase "[on-cpu]")
awk -v s="$cold_sleep" 'BEGIN { exit !(s >= 280000 && s <= 600000) }' &&
	pass || fail "--hot-cold: sleep_phase has $cold_sleep us under [off-cpu], not about 300 000"
# compute_phase runs 300 ms of wall time: on a busy machine part of it is
# spent waiting for a CPU, which a preempted thread (still runnable) does
# neither on nor off CPU (245 ms on and 0 off measured beside a spinner,
# 127 ms on beside a whole build): on and off CPU together are at most its
# 300 ms, and a good part of it is on a CPU
awk -v c="$hot_compute" -v o="$cold_compute" 'BEGIN { exit !(c >= 50000 && c + o <= 450000) }' &&
	pass || fail "--hot-cold: compute_phase has $hot_compute us on CPU and $cold_compute off, not 300 000 together"
awk -v s="$hot_sleep" 'BEGIN { exit !(s <= 15000) }' &&
	pass || fail "--hot-cold: sleep_phase on CPU $hot_sleep us: not almost none"
check_contains "--hot-cold: the summary gives both" err \
	"wrote hc.svg \([0-9]+ on-CPU samples, [0-9]+ waits?, [0-9.]+ ms off CPU"
check_contains "--hot-cold: its title" hc.svg ">Hot/Cold Flame Graph<"
read -r r g b <<<"$(fill_of hc.svg sleep_phase)"
awk -v r="$r" -v g="$g" -v b="$b" 'BEGIN { exit !(b >= 190 && r < 150 && g < 150) }' &&
	pass || fail "--hot-cold: sleep_phase (off CPU) is drawn rgb($r,$g,$b), not blue"
read -r r g b <<<"$(fill_of hc.svg compute_phase)"
awk -v r="$r" -v g="$g" -v b="$b" 'BEGIN { exit !(r >= 200 && b < 100) }' &&
	pass || fail "--hot-cold: compute_phase (on CPU) is drawn rgb($r,$g,$b), not in the hot palette"

# flamegraph-build: the same for a target of a project
mkdir proj
cp "$FG_SRC/examples/offcpu/offcpu.c" proj/
cat > proj/flamegraph.toml <<'EOF'
[package]
name = "waits"
version = "0.1.0"

[build]
system = "cc"

[[bin]]
name = "offcpu"
sources = ["offcpu.c"]
args = ["200", "20"]
EOF
check_exit "flamegraph-build --off-cpu" 0 flamegraph-build --manifest-path proj --bin offcpu --off-cpu \
	-o build.svg --folded build.folded
build_us=$(incl build.folded sleep_phase)
awk -v s="$build_us" 'BEGIN { exit !(s >= 180000 && s <= 500000) }' &&
	pass || fail "flamegraph-build --off-cpu: sleep_phase has $build_us us, not about 200 000"
check_exit "flamegraph-build --hot-cold" 0 flamegraph-build --manifest-path proj --bin offcpu --hot-cold \
	-o build-hc.svg --folded build-hc.folded
check_contains "flamegraph-build --hot-cold: the on-CPU root" build-hc.folded "^offcpu;\[on-cpu\];"
check_contains "flamegraph-build --hot-cold: the off-CPU root" build-hc.folded "^offcpu;\[off-cpu\];.*sleep_phase"

# pprof and speedscope carry microseconds
check_exit "--off-cpu --format json" 0 flamegraph --off-cpu --format json -o off.json -- ./offcpu 50 10
check_contains "--off-cpu --format json: microseconds" off.json '"unit":"microseconds"'

# the options' conflicts, before anything runs
check_exit "--off-cpu with --hot-cold" 1 flamegraph --off-cpu --hot-cold -- ./offcpu 1 1
check_contains "--off-cpu with --hot-cold: says why" err "conflict"
check_exit "--off-cpu with -c" 1 flamegraph --off-cpu -c "record -e cycles" -- ./offcpu 1 1
check_contains "--off-cpu with -c: says why" err "choose the events themselves"
# an on-CPU recording has no waits: re-rendered with --off-cpu, it says so
check_exit "on-CPU recording kept" 0 flamegraph --call-graph fp -o on.svg --perfdata-out on.data -- ./offcpu 0 50
check_exit "--off-cpu --perfdata of an on-CPU recording" 4 flamegraph --off-cpu --perfdata on.data -o none.svg
check_contains "--off-cpu --perfdata of an on-CPU recording: says what it needs" err "holds no off-CPU waits"
check_exit "--off-cpu recording kept" 0 flamegraph --off-cpu -o k.svg --perfdata-out off.data -- ./offcpu 100 0
check_exit "--off-cpu --perfdata re-renders it" 0 flamegraph --off-cpu --perfdata off.data -o again.svg --folded again.folded
again_us=$(incl again.folded sleep_phase)
awk -v s="$again_us" 'BEGIN { exit !(s >= 90000 && s <= 400000) }' &&
	pass || fail "--off-cpu --perfdata: sleep_phase has $again_us us, not about 100 000"

# a user without the tracepoints: the reason and the fix, nothing run
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	chmod 755 "$TMPDIR"
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env TMPDIR=/tmp "$@"; }
	if as_nobody "$FG_BIN/flamegraph" --version >/dev/null 2>&1; then
		check_exit "--off-cpu as another user" 3 as_nobody "$FG_BIN/flamegraph" --off-cpu -o /dev/null -- "$TMPDIR/offcpu" 1 1
		check_contains "--off-cpu as another user: root or --root" err "only root may use here.*--root|perf_event_paranoid"
		check_not_contains "--off-cpu as another user: nothing ran" out "slept"
	else
		echo "note: the build folder is not readable by another user; the permission check is left out"
	fi
fi
