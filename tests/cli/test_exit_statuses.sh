# Every exit status the docs state, against the programs: each status is
# made to happen and checked, and the statuses listed in each man page's
# EXIT STATUS section (and the table of docs/recording.md) must be exactly the ones
# checked here, so a page that states a wrong or a missing status fails.
if ! perf record -q -o perf.probe -- true 2>/dev/null; then
	echo "perf cannot record here (perf_event_paranoid?)" >&2
	exit 77
fi
rm -f perf.probe

# the statuses a man page states: the numbers that open a status (".B 4",
# "; 4 when", "4 no samples" at a line's start) in its EXIT STATUS section;
# 128+N as "128"
documented() {
	awk '/^\.SH EXIT STATUS/ { on = 1; next } /^\.SH / { on = 0 } on' "$FG_SRC/man/$1" |
		sed 's/\\f[BIR]//g; s/\\-/-/g' |
		grep -oE '(^|\.B |; )[0-9]+( |$)' | grep -oE '[0-9]+' | sort -un | tr '\n' ' '
}
# seen STATUS...: the statuses this test made happen, for the comparison
declare -A seen
expect() { # PROGRAM STATUS WHAT CMD...
	local prog=$1 status=$2 what=$3
	shift 3
	check_exit "$prog: $status ($what)" "$status" "$@"
	seen[$prog]+="$status "
}
sorted() { tr ' ' '\n' <<<"$1" | grep . | sort -un | tr '\n' ' '; }

# a program that works for a moment, one that fails, one that crashes
cat > busy.c <<'EOF'
#include <signal.h>
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
int main(int argc, char **argv)
{
	clock_t end = clock() + (clock_t)(CLOCKS_PER_SEC * (argc > 1 ? atof(argv[1]) : 0.2));
	while (clock() < end)
		sink = sink * 31 + 7;
	if (argc > 2 && argv[2][0] == 'x')
		return 7;
	if (argc > 2 && argv[2][0] == 'c')
		raise(SIGSEGV);
	return 0;
}
EOF
cc -O1 -g -fno-omit-frame-pointer -o busy busy.c

# --- flamegraph --------------------------------------------------------------
fg() { flamegraph --call-graph fp -F 499 "$@"; }
expect flamegraph.1 0 "graph written" fg -o ok.svg -- ./busy
expect flamegraph.1 1 "usage error" fg --no-such-option -- ./busy
expect flamegraph.1 3 "perf missing" env PERF=/nonexistent/perf flamegraph -o p.svg -- ./busy
# (at 1 Hz the first sample needs a second of CPU time)
expect flamegraph.1 4 "no samples" flamegraph -F 1 -o none.svg -- ./busy 0
expect flamegraph.1 5 "the program failed" fg -o fail.svg -- ./busy 0.2 x
# interrupted: 128 + SIGINT
got=0
timeout --preserve-status -s INT 1 flamegraph --call-graph fp -F 499 -o int.svg -- ./busy 20 >out 2>err || got=$?
check_eq "flamegraph.1: 128+N (SIGINT: 130)" 130 "$got"
seen[flamegraph.1]+="128 "

# --- flamegraph-build (a flamegraph.toml project: no configure step) ---------
mkdir -p proj/src
cp busy.c proj/src/busy.c
printf 'int main(void) { return 0 }\n' > proj/src/broken.c
cat > proj/flamegraph.toml <<'EOF'
[package]
name = "busy"
[[bin]]
name = "busy"
sources = ["src/busy.c"]
[[example]]
name = "broken"
sources = ["src/broken.c"]
EOF
fgb() { flamegraph-build --manifest-path "$PWD/proj" --call-graph fp -F 499 "$@"; }
expect flamegraph-build.1 0 "graph written" fgb --bin busy -o b-ok.svg
expect flamegraph-build.1 1 "unknown target" fgb --bin nope
expect flamegraph-build.1 2 "build failed" fgb --example broken
expect flamegraph-build.1 3 "perf missing" env PERF=/nonexistent/perf flamegraph-build --manifest-path "$PWD/proj" --bin busy
expect flamegraph-build.1 4 "no samples" flamegraph-build --manifest-path "$PWD/proj" -F 1 --bin busy -o b-none.svg -- 0
expect flamegraph-build.1 5 "the program failed" fgb --bin busy -o b-fail.svg -- 0.2 x
# the gate: the working tree gives grow() four times its committed share
cat > proj/src/gate.c <<'EOF'
#define GROW 1
static volatile unsigned long sink;
__attribute__((noinline)) static void spin(long n)
{
	for (long i = 0; i < n; i++)
		sink = sink * 31 + 7;
}
__attribute__((noinline)) static void grow(void) { spin(30000000L * GROW); }
__attribute__((noinline)) static void stay(void) { spin(120000000L); }
int main(void) { grow(); stay(); return 0; }
EOF
printf '[[bench]]\nname = "gate"\nsources = ["src/gate.c"]\n' >> proj/flamegraph.toml
(cd proj && git init -q && git add . && git -c user.email=t@example.com -c user.name=t commit -qm init)
sed -i 's/^#define GROW 1$/#define GROW 4/' proj/src/gate.c
expect flamegraph-build.1 6 "the gate failed" fgb --bench gate --compare HEAD --fail-above 10 -o gate.svg
got=0
timeout --preserve-status -s INT 1 flamegraph-build --manifest-path "$PWD/proj" --call-graph fp --bin busy -o b-int.svg -- 20 >out 2>err || got=$?
check_eq "flamegraph-build.1: 128+N (SIGINT: 130)" 130 "$got"
seen[flamegraph-build.1]+="128 "

# --- flamegraph-render, flamegraph-diff-folded -------------------------------
printf 'main;a 3\nmain;b 1\n' > before.folded
printf 'main;a 1\nmain;b 3\n' > after.folded
: > empty.folded
expect flamegraph-render.1 0 "graph written" flamegraph-render -o r.svg before.folded
expect flamegraph-render.1 1 "unreadable input" flamegraph-render -o r.svg missing.folded
expect flamegraph-render.1 4 "no samples" flamegraph-render -o r-empty.svg empty.folded
expect flamegraph-diff-folded.1 0 "joined" flamegraph-diff-folded before.folded after.folded
expect flamegraph-diff-folded.1 1 "usage error" flamegraph-diff-folded before.folded
expect flamegraph-diff-folded.1 4 "both empty" flamegraph-diff-folded empty.folded empty.folded
expect flamegraph-diff-folded.1 6 "the gate failed" flamegraph-diff-folded --fail-above 5 before.folded after.folded
for i in 1 2 3; do printf 'main;a %s\nmain;b 100\n' $((100 + i)) > fb$i.folded; done
for i in 1 2 3; do printf 'main;a %s\nmain;b 100\n' $((108 + 2 * i)) > fa$i.folded; done
expect flamegraph-diff-folded.1 7 "a first look cannot tell yet" flamegraph-diff-folded --first-look --fail-above 5 fb1.folded fb2.folded fb3.folded -- fa1.folded fa2.folded fa3.folded

# --- what the docs say --------------------------------------------------------
for page in "${!seen[@]}"; do
	check_eq "$page: the statuses documented are the ones the program gives" \
		"$(sorted "${seen[$page]}")" "$(documented "$page")"
done
# the table of docs/recording.md: flamegraph's and flamegraph-build's statuses
readme=$(awk '/^Exit statuses of `flamegraph`/ { on = 1 } on && /^\| [0-9]/ { sub(/\+N/, "", $2); print $2 } on && /^$/ && n++ > 1 { exit }' \
	"$FG_SRC/docs/recording.md" | sort -un | tr '\n' ' ')
check_eq "docs/recording.md: the exit status table" "$(sorted "${seen[flamegraph.1]} ${seen[flamegraph-build.1]}")" "$readme"
