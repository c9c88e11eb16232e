# Per-thread graphs and the pprof export, with the default recorder:
# --per-thread puts each of examples/threads' three named threads under its
# own root (NAME-TID) with its share of the work (1:2:3), and --format
# pprof writes a profile that `go tool pprof -top` reads with the same
# shares as the folded stacks.
# ctest: RESOURCE_LOCK cpu
require_perf
cc -O2 -g -fno-omit-frame-pointer -pthread -o threads "$FG_SRC/examples/threads/threads.c"
cc -O2 -g -fno-omit-frame-pointer -o callgraph "$FG_SRC/examples/callgraph/callgraph.c"

check_exit "--per-thread" 0 flamegraph --per-thread --call-graph fp -o threads.svg --folded threads.folded -- ./threads 30
for t in alpha beta gamma; do
	check_contains "--per-thread: $t under its own root" threads.folded "^$t-[0-9]+;.*${t}_work"
done
# each thread's share of the three
awk '{ split($1, f, ";"); sub(/-[0-9]+$/, "", f[1]); s[f[1]] += $NF }
	END { t = s["alpha"] + s["beta"] + s["gamma"]
	      printf "%.3f %.3f %.3f\n", s["alpha"] / t, s["beta"] / t, s["gamma"] / t }' threads.folded > shares.txt
read -r a b g < shares.txt
awk -v a="$a" -v b="$b" -v g="$g" 'BEGIN { exit !(a > 0.10 && a < 0.24 && b > 0.25 && b < 0.42 && g > 0.40 && g < 0.60) }' &&
	pass || fail "--per-thread: shares alpha $a, beta $b, gamma $g are not about 1:2:3"
check_contains "--per-thread: roots in the graph" threads.svg "<title>gamma-[0-9]+ "
# the held process before its exec is the launcher, not the program
check_not_contains "--per-thread: no root of the launcher" threads.folded "^flamegraph-[0-9]+;"
check_exit "without --per-thread: one root per thread name, no TID" 0 \
	flamegraph --call-graph fp -o plain.svg --folded plain.folded -- ./threads 5
check_not_contains "no TID without --per-thread" plain.folded "^(alpha|beta|gamma)-[0-9]"
# speedscope: a profile per thread, or per thread name with =name
check_exit "--per-thread --format json" 0 flamegraph --per-thread --call-graph fp --format json -o threads.json -- ./threads 5
for t in alpha beta gamma; do
	check_contains "--per-thread json: a profile of its own for $t" threads.json "\"type\":\"sampled\",\"name\":\"$t-[0-9]+\""
done
check_exit "--per-thread=name --format json" 0 flamegraph --per-thread=name --call-graph fp --format json -o names.json -- ./threads 5
check_contains "--per-thread=name json: one profile per name" names.json '"type":"sampled","name":"gamma","unit"'
check_not_contains "--per-thread=name json: no TID" names.json '"name":"(alpha|beta|gamma)-[0-9]+"'
check_exit "--per-thread=name folded: roots without TID" 0 flamegraph --per-thread=name --call-graph fp -o names.svg --folded names.folded -- ./threads 5
check_contains "--per-thread=name folded: gamma root" names.folded "^gamma;"
check_exit "--per-thread=bad" 1 flamegraph --per-thread=bad -- ./threads 1
check_contains "--per-thread=bad: the accepted forms" err "per-thread=name"

# pprof
check_exit "--format pprof" 0 flamegraph --format pprof --call-graph fp --folded cg.folded -- ./callgraph 400
check_exit "default name profile.pb.gz, gzip" 0 gzip -t profile.pb.gz
if command -v go >/dev/null; then
	# go tool pprof wants a writable home for its cache
	rc=0
	HOME=$PWD GOCACHE=$PWD/gocache go tool pprof -top -nodecount=1000 profile.pb.gz > top.txt 2> top.err || rc=$?
	check_eq "go tool pprof read it" "0" "$rc"
	check_contains "pprof: cpu nanoseconds" top.txt "^Type: cpu$"
	for fn in a b; do
		# inclusive share in the folded stacks vs pprof's cum%
		awk -v fn="$fn" '{ t += $NF; n = split($1, f, ";"); for (i = 1; i <= n; i++) if (f[i] == fn) { s += $NF; break } }
			END { printf "%.1f\n", 100 * s / t }' cg.folded > folded_$fn.txt
		awk -v fn="$fn" '$NF == fn { sub(/%/, "", $5); print $5 }' top.txt > pprof_$fn.txt
		awk -v x="$(cat folded_$fn.txt)" -v y="$(cat pprof_$fn.txt)" 'BEGIN { d = x - y; exit !(y != "" && d < 0.2 && d > -0.2) }' &&
			pass || fail "pprof: $fn has $(cat pprof_$fn.txt)% in pprof, $(cat folded_$fn.txt)% in the folded stacks"
	done
else
	fail "go is not installed: scripts/setup installs it (golang-go, golang or go in scripts/packages/)"
fi
check_exit "an unknown format" 1 flamegraph --format pdf -- ./callgraph 10
check_contains "an unknown format: the formats, pprof among them" err "pprof"
