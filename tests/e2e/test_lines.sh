# --lines: frames named FUNCTION:FILE:LINE — the sampled line, the line of
# each call, an inlined function's call line in the function it was
# inlined into — from the native reader (DWARF line tables: streamed, from
# a file, frame pointers) and from perf script -F +srcline text of perf's
# recording, on a program built -O2 -g whose hot loop calls an inlined
# function. The lines are found in the source with grep -n, not written
# here.
require_perf
mkdir -p proj/src
cat > proj/src/prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned sink;

static inline __attribute__((always_inline)) unsigned mix(unsigned x)
{
	x ^= x << 13; /* MIX_FIRST */
	x ^= x >> 17;
	x ^= x << 5; /* MIX_LAST */
	return x;
}

static __attribute__((noinline)) unsigned hot(unsigned n)
{
	unsigned acc = 1;
	for (unsigned i = 0; i < n; i++) /* HOT_LOOP */
		acc = mix(acc + i); /* HOT_CALL */
	return acc;
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 150;
	unsigned total = 0;

	for (unsigned r = 0; r < rounds; r++)
		total += hot(1000000 + r); /* MAIN_CALL */
	sink = total;
	printf("%u\n", total);
	return 0;
}
C
cat > proj/flamegraph.toml <<'TOML'
[package]
name = "prog"

[build]
system = "cc"

[[bin]]
name = "prog"
sources = ["src/prog.c"]
args = ["150"]
TOML
line_of() { grep -n "$1" proj/src/prog.c | cut -d: -f1; }
mix_first=$(line_of MIX_FIRST)
mix_last=$(line_of MIX_LAST)
hot_loop=$(line_of HOT_LOOP)
hot_call=$(line_of HOT_CALL)
main_call=$(line_of MAIN_CALL)
mix_lines=$(seq -s '|' "$mix_first" "$mix_last")
check_eq "the markers are found" 5 "$(printf '%s\n' $mix_first $mix_last $hot_loop $hot_call $main_call | grep -c '^[0-9][0-9]*$')"
cc -O2 -g -fno-omit-frame-pointer -o prog proj/src/prog.c

# the stacks of the hot loop, with the lines of every frame of prog.c
check_lines() { # WHAT FOLDED [inline]
	local what=$1 f=$2
	check_contains "$what: main at the call of hot" "$f" ";main:prog\.c:$main_call;hot:prog\.c:"
	if [ "${3:-inline}" = inline ]; then
		check_contains "$what: hot at the line mix was inlined at, mix at its own lines" "$f" \
			";hot:prog\.c:$hot_call;mix:prog\.c:($mix_lines) [0-9]+$"
	else
		check_contains "$what: hot at the line of the inlined call, no mix frame" "$f" \
			";hot:prog\.c:$hot_call [0-9]+$"
		check_not_contains "$what: no mix frame" "$f" ";mix"
	fi
	check_contains "$what: the loop's own line" "$f" ";hot:prog\.c:($hot_loop|$hot_call)( |;)"
	check_not_contains "$what: no frame of prog.c without its line" "$f" ";(main|hot|mix)( |;)"
	check_not_contains "$what: no line outside prog.c's functions" "$f" \
		";hot:prog\.c:($(seq -s '|' 1 $((mix_first - 1))))[ ;]"
}

check_exit "flamegraph --lines (streamed)" 0 flamegraph --lines -F 499 -o s.svg --folded s.folded -- ./prog
check_lines "streamed" s.folded
"$FG_SRC/tests/tools/svg-frames" s.svg > s.frames
check_contains "the graph shows the lines" s.frames "^mix:prog\.c:($mix_lines)	"
# (recorded by perf: perf script unwinds perf's whole stack copies)
check_exit "flamegraph --lines --no-stream" 0 flamegraph --recorder perf --lines --no-stream -F 499 -o f.svg --folded f.folded --perfdata-out kept.data -- ./prog
check_lines "native reader, file" f.folded
check_exit "flamegraph --lines --perf-script" 0 flamegraph --lines --perf-script -F 499 -o p.svg --folded p.folded -- ./prog
check_lines "perf script -F +srcline" p.folded
check_exit "flamegraph --lines --no-inline" 0 flamegraph --lines --no-inline -F 499 -o n.svg --folded n.folded -- ./prog
check_lines "--no-inline" n.folded no-inline
check_exit "flamegraph --lines --call-graph fp" 0 flamegraph --lines --call-graph fp -F 499 -o fp.svg --folded fp.folded -- ./prog
check_contains "frame pointers: hot at the line of the inlined call" fp.folded ";hot:prog\.c:$hot_call [0-9]+$"
check_not_contains "frame pointers: no frame of prog.c without its line" fp.folded ";(main|hot|mix)( |;)"
# without --lines, nothing changes
check_exit "flamegraph without --lines" 0 flamegraph -F 499 -o plain.svg --folded plain.folded -- ./prog
check_contains "without --lines: plain names" plain.folded ";main;hot;mix [0-9]+$"
check_not_contains "without --lines: no lines" plain.folded "prog\.c"

# flamegraph-collapse-perf --lines: the kept recording natively, and perf
# script's text; the two agree on the hot stacks
check_exit "collapse-perf --lines perf.data" 0 flamegraph-collapse-perf --lines kept.data -o native.folded
check_lines "collapse-perf natively" native.folded
perf script -F +srcline -i kept.data > srcline.txt 2>/dev/null
check_exit "collapse-perf --lines text" 0 flamegraph-collapse-perf --lines srcline.txt -o text.folded
check_lines "collapse-perf on perf script -F +srcline" text.folded
grep ";hot:prog.c:$hot_call;mix:prog.c:" native.folded | sed 's/.*;main:/main:/' | sort > native.hot
grep ";hot:prog.c:$hot_call;mix:prog.c:" text.folded | sed 's/.*;main:/main:/' | sort > text.hot
check_same_file "native and perf script's lines: the same hot stacks and counts" text.hot native.hot
# srcline text without --lines: the lines are passed over, no warning
check_exit "collapse-perf text without --lines" 0 flamegraph-collapse-perf srcline.txt -o nolines.folded
check_not_contains "without --lines: no warning about the srcline lines" err "skipped"
perf script -i kept.data > plain.txt 2>/dev/null
flamegraph-collapse-perf plain.txt > plain-text.folded
check_same_file "without --lines: as perf script without srcline" plain-text.folded nolines.folded

# flamegraph-build --lines: the project's release build (-O2 -g)
check_exit "flamegraph-build --lines" 0 flamegraph-build --manifest-path "$PWD/proj" --bin prog --lines -F 499 -o b.svg --folded b.folded
check_lines "flamegraph-build" b.folded

# off-CPU (perf script's scheduler events, with -F ...,+srcline): where the
# program waits, by line; where perf may not record them, not checked
cat > sleeper.c <<'C'
#include <unistd.h>
int main(void)
{
	for (int i = 0; i < 10; i++)
		usleep(20000); /* SLEEP_CALL */
	return 0;
}
C
cc -O2 -g -fno-omit-frame-pointer -o sleeper sleeper.c
sleep_call=$(grep -n SLEEP_CALL sleeper.c | cut -d: -f1)
if flamegraph --off-cpu -o probe.svg -- ./sleeper 2>/dev/null; then
	check_exit "flamegraph --off-cpu --lines" 0 flamegraph --off-cpu --lines -o off.svg --folded off.folded -- ./sleeper
	check_contains "off-CPU: main at the line of the sleep" off.folded ";main:sleeper\.c:$sleep_call;usleep"
	check_not_contains "off-CPU: no warning about the srcline lines" err "skipped"
fi
