# A mapped input file cut short by another process while a program reads
# it: flamegraph-render and flamegraph-collapse-perf end with an error
# naming the file and how far it shrank, exit status 1, and no output
# file, where a reader of a mapping that lost its pages would die of
# SIGBUS (exit status 135 from the shell).
#
# The truncation lands at a known point: either the program is stopped
# (SIGSTOP) as soon as the file shows in its /proc/PID/maps, truncated and
# let go on, or, for the renderer, a FIFO after the file holds it between
# the reading and the drawing, which reads the frame names from the
# mapping.

cut_to=4096

# wait_mapped PID NAME: returns once PID maps a file whose path ends in
# /NAME (1 when PID ended first). Builtins only, so the loop is quick
# enough to catch the mapping long before the program is done with it.
wait_mapped() {
	local pid=$1 name=$2 line state i
	for ((i = 0; i < 500000; i++)); do
		{ read -r _ _ state _ </proc/"$pid"/stat; } 2>/dev/null || return 1
		[ "$state" != Z ] || return 1
		while read -r line; do
			case $line in *"/$name") return 0 ;; esac
		done 2>/dev/null </proc/"$pid"/maps || return 1
	done
	return 1
}

# cut_while_read WHAT NAME OUT PROG ARGS...: runs PROG, stops it once it
# maps NAME, cuts NAME to $cut_to bytes and lets it go on. Sets rc (exit
# status; empty when PROG was done before the cut) and leaves its stderr
# in NAME.err.
cut_while_read() {
	local what=$1 name=$2 out=$3 pid
	shift 3
	rc=
	"$@" -o "$out" "$name" 2>"$name.err" &
	pid=$!
	if wait_mapped "$pid" "$name"; then
		kill -STOP "$pid"
		truncate -s "$cut_to" "$name"
		kill -CONT "$pid"
		wait "$pid" && rc=0 || rc=$?
	else
		wait "$pid" || true
		echo "$what: the program was done before the file could be cut"
	fi
}

# check_cut WHAT NAME SIZE OUT: the outcome of a cut file of SIZE bytes
check_cut() {
	local what=$1 name=$2 size=$3 out=$4
	check_eq "$what: exit status" 1 "$rc"
	check_contains "$what: the error names the file and its sizes" "$name.err" \
		"error: .*$name was cut short while it was read \(it shrank from $size to $cut_to bytes\) — read it again when whatever writes it is done"
	[ "$(grep -c . "$name.err")" -eq 1 ] && pass ||
		fail "$what: one line of error expected: $(cat "$name.err")"
	[ ! -e "$out" ] && pass || fail "$what: $out was written from a file cut short"
}

# --- flamegraph-render, held between reading and drawing by a FIFO -------
for format in svg html; do
	awk 'BEGIN { for (i = 0; i < 300000; i++)
		printf "main;worker_%d;module_%d::handler;leaf_with_a_long_name_%d 1\n", i % 97, i % 10007, i }' \
		>held.folded
	size=$(stat -c %s held.folded)
	rm -f more.fifo
	mkfifo more.fifo
	flamegraph-render --format "$format" -o "held.$format" held.folded more.fifo 2>held.folded.err &
	pid=$!
	# opened once the renderer opens the FIFO, that is when it has read
	# all of held.folded, whose frame names it keeps in the mapping
	exec 3>more.fifo
	truncate -s "$cut_to" held.folded
	echo "main;late 1" >&3
	exec 3>&-
	wait "$pid" && rc=0 || rc=$?
	check_cut "render --format $format, cut before drawing" held.folded "$size" "held.$format"
done

# --- flamegraph-render, cut while it reads -------------------------------
for ((try = 1; try <= 3; try++)); do
	awk 'BEGIN { for (i = 0; i < 2000000; i++)
		printf "main;worker_%d;module_%d::handler;leaf_%d 1\n", i % 97, i % 10007, i }' \
		>render.folded
	size=$(stat -c %s render.folded)
	cut_while_read "render, cut while read" render.folded render.svg flamegraph-render
	[ -z "$rc" ] || break
	rm -f render.svg
done
if [ -n "$rc" ]; then check_cut "render, cut while read" render.folded "$size" render.svg; else
	fail "render, cut while read: the renderer was done before the cut, 3 times"
fi

# --- flamegraph-collapse-perf, cut while its threads parse it -----------
zcat "$FG_SRC/tests/data/perf-threads.txt.gz" >one.txt
for ((try = 1; try <= 3; try++)); do
	for ((k = 0; k < 20; k++)); do cat one.txt; done >perf.txt
	size=$(stat -c %s perf.txt)
	cut_while_read "collapse, cut while read" perf.txt perf.folded \
		flamegraph-collapse-perf -n 2
	[ -z "$rc" ] || break
	rm -f perf.folded
done
if [ -n "$rc" ]; then check_cut "collapse, cut while read" perf.txt "$size" perf.folded; else
	fail "collapse, cut while read: the collapser was done before the cut, 3 times"
fi

# --- a whole file still reads as before ----------------------------------
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "main;f_%d 1\n", i }' >whole.folded
flamegraph-render -o whole.svg whole.folded 2>whole.err && rc=0 || rc=$?
check_eq "render, whole file: exit status" 0 "$rc"
check_eq "render, whole file: nothing on stderr" "" "$(cat whole.err)"
