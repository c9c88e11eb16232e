# Allocation graphs (flamegraph --alloc): tests/e2e/alloc/counted.c counts
# its own allocations per function (three threads, one of them ending
# early; malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign,
# valloc; some blocks leaked) and prints its totals. The bytes and count
# views must match them exactly per function, leaked exactly, peak within
# 5%. Then fork, exec, _exit, a default-action signal, C++ new, a static
# program, and the options that cannot go with --alloc. No perf is needed.
. "$FG_SRC/tests/lib/stacks.sh" # thread_start_frame
cc -O2 -g -fno-omit-frame-pointer -pthread -o counted "$FG_SRC/tests/e2e/alloc/counted.c"

# per allocating function (the stacks' last frame): "NAME WEIGHT"
by_leaf() {
	awk '{ n = split($1, f, ";"); s[f[n]] += $NF } END { for (k in s) print k, s[k] }' "$1" | sort
}

for view in bytes count leaked peak; do
	check_exit "--alloc=$view" 0 flamegraph --alloc=$view --format folded -o $view.folded -- ./counted 150
	mv out prog.$view
	mv err err.$view
	check_contains "--alloc=$view: summary line" err.$view "wrote $view.folded \\($view: [0-9]+ allocations, .* allocated, .* leaked in [0-9]+ blocks, peak .*; [0-9]+ stacks, 1 process"
	by_leaf $view.folded > leaf.$view
done
for f in a_malloc a_calloc a_realloc a_aligned a_leak; do
	check_eq "bytes of $f" "$(awk -v f=$f '$1 == f { print $3 }' prog.bytes)" \
		"$(awk -v f=$f '$1 == f { print $2 }' leaf.bytes)"
	check_eq "calls of $f" "$(awk -v f=$f '$1 == f { print $2 }' prog.count)" \
		"$(awk -v f=$f '$1 == f { print $2 }' leaf.count)"
done
check_eq "leaked by a_leak" "$(awk '$1 == "a_leak" { print $4 }' prog.leaked)" \
	"$(awk '$1 == "a_leak" { print $2 }' leaf.leaked)"
check_not_contains "nothing of counted's own functions leaked but a_leak" leaf.leaked "^a_(malloc|calloc|realloc|aligned) "
# the peak: the program's own blocks live at the peak (the graph's, of
# counted's functions) against the peak it counted itself
want=$(awk '$1 == "peak" { print $2 }' prog.peak)
got=$(awk '$1 ~ /^a_/ { s += $2 } END { print s + 0 }' leaf.peak)
awk -v w="$want" -v g="$got" 'BEGIN { d = (g - w) / w; exit !(w > 0 && d < 0.05 && d > -0.05) }' &&
	pass || fail "peak: the graph has $got bytes of counted's blocks, the program counted $want"
# stacks: rooted at the process, through the threads' start and main
check_contains "stacks rooted at the program" bytes.folded "^counted;(.*;)?$(thread_start_frame);worker;round_of;a_malloc [0-9]+$"
check_contains "the leaks' stack" leaked.folded "^counted;(.*;)?$(thread_start_frame);worker;(round_of;)?a_leak [0-9]+$"

# the graph itself
check_exit "--alloc SVG" 0 flamegraph --alloc -o alloc.svg -- ./counted 20
check_contains "title" alloc.svg "Allocation Flame Graph — bytes"
check_contains "count name bytes" alloc.svg "<title>a_malloc \\([0-9,]+ bytes"
check_exit "--alloc=count SVG" 0 flamegraph --alloc=count -o count.svg -- ./counted 20
check_contains "count: title" count.svg "Allocation Flame Graph — count"
check_contains "count: count name allocations" count.svg "<title>a_malloc \\([0-9,]+ allocations"
# the program's output and exit status are its own
check_contains "the program's stdout" out "^a_malloc [0-9]+ [0-9]+ 0$"
printf '#include <stdlib.h>\nint main(void) { return malloc(10) ? 3 : 0; }\n' > three.c
cc -g -fno-omit-frame-pointer -o three three.c
check_exit "a failing program: exit 5, graph written" 5 flamegraph --alloc --format folded -o three.folded -- ./three
check_contains "a failing program: its status" err "exited with status 3"
check_contains "a failing program: its allocation" three.folded "^three;.*main [0-9]+$"

# pprof: objects and bytes in each sample, as Go's heap profiles
check_exit "--alloc --format pprof" 0 flamegraph --alloc --format pprof -o alloc.pb.gz -- ./counted 20
mv out prog.pprof
check_exit "--alloc pprof: gzip" 0 gzip -t alloc.pb.gz
check_exit "--alloc=leaked --format pprof" 0 flamegraph --alloc=leaked --format pprof -o leaked.pb.gz -- ./counted 20
if command -v go >/dev/null; then
	HOME=$PWD GOCACHE=$PWD/gocache go tool pprof -raw alloc.pb.gz > raw.txt 2> raw.err || true
	check_contains "pprof: objects and bytes, bytes the default" raw.txt "^alloc_objects/count alloc_space/bytes\\[dflt\\]$"
	# a_malloc's objects: the program's own count of its calls
	HOME=$PWD GOCACHE=$PWD/gocache go tool pprof -top -nodecount=100 -sample_index=alloc_objects alloc.pb.gz > top.objects 2>/dev/null || true
	want=$(awk '$1 == "a_malloc" { print $2 }' prog.pprof)
	[ -n "$want" ] && [ "$want" -gt 0 ] && pass || fail "pprof: counted printed no a_malloc calls"
	check_eq "pprof: a_malloc's objects are its calls" "$want" "$(awk '$NF == "a_malloc" { print $1 }' top.objects)"
	HOME=$PWD GOCACHE=$PWD/gocache go tool pprof -raw leaked.pb.gz > rawl.txt 2>/dev/null || true
	check_contains "pprof leaked: in-use objects and bytes" rawl.txt "^inuse_objects/count inuse_space/bytes\\[dflt\\]$"
fi

# one run, every view: the recordings kept, then drawn again
check_exit "--perfdata-out keeps the recordings" 0 flamegraph --alloc --perfdata-out kept --format folded -o kept.bytes -- ./counted 30
mv out prog.kept
[ -d kept ] && ls kept | grep -Eq '^alloc\.[0-9]+\.0$' && pass || fail "--perfdata-out: no folder of recordings"
check_exit "--perfdata kept --alloc=leaked" 0 flamegraph --alloc=leaked --perfdata kept --format folded -o kept.leaked
check_eq "the kept run's leaks, drawn again" "$(awk '$1 == "a_leak" { print $4 }' prog.kept)" \
	"$(by_leaf kept.leaked | awk '$1 == "a_leak" { print $2 }')"
check_contains "re-rendered: the allocation summary" err "wrote kept.leaked \\(leaked: [0-9]+ allocations"
check_exit "--perfdata of recordings without --alloc" 1 flamegraph --perfdata kept -o x.svg
check_contains "without --alloc: what to add" err "holds allocation recordings.*add --alloc"
check_exit "--perfdata-out replaces an older folder of recordings" 0 flamegraph --alloc --perfdata-out kept -o k.svg -- ./counted 2
check_eq "one recording in it" "1" "$(ls kept | wc -l)"
check_exit "--perfdata-out on another file is refused" 1 flamegraph --alloc --perfdata-out k.svg -o k2.svg -- ./counted 2
check_contains "--perfdata-out: why" err "is not a folder of allocation recordings"

# fork: the child is a process of its own (it calls round_of from main
# and ends with _exit); what it inherited is not its allocation
check_exit "fork" 0 flamegraph --alloc --format folded -o fork.folded -- ./counted 20 fork
check_contains "fork: two processes" err "; [0-9]+ stacks, 2 processes"
check_contains "fork: the child's round" fork.folded "^counted;.*main;round_of;a_malloc [0-9]+$"
check_exit "fork, leaked" 0 flamegraph --alloc=leaked --format folded -o forkleak.folded -- ./counted 20 fork
check_not_contains "fork: the child leaks nothing of round_of" forkleak.folded "round_of;a_(malloc|calloc|realloc|aligned) "

# exec: the shell's allocations before it execs, and the program's after
check_exit "exec" 0 flamegraph --alloc --format folded -o exec.folded -- sh -c 'exec ./counted 5'
check_contains "exec: the shell's allocations" exec.folded "^sh;"
check_contains "exec: the program's" exec.folded "^counted;.*a_malloc [0-9]+$"

# a program ended by a signal's default action still leaves its recording
printf '#include <signal.h>\n#include <stdlib.h>\n#include <string.h>\nint main(void) { char *p = malloc(1000); memset(p, 1, 1000); raise(SIGTERM); return p[5]; }\n' > term.c
cc -g -fno-omit-frame-pointer -o term term.c
check_exit "SIGTERM" 5 flamegraph --alloc --format folded -o term.folded -- ./term
check_contains "SIGTERM: the program's fate" err "killed by SIGTERM"
check_contains "SIGTERM: its allocation, leaked" term.folded "^term;.*main 1000$"

# a stop request to flamegraph alone is passed on: the program ends by it,
# its recording written first, and the graph covers what it did
printf '#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\nint main(void) { for (int i = 0; i < 400; i++) { char *p = malloc(1000); memset(p, 1, 1000); usleep(20000); } return 0; }\n' > slow.c
cc -g -fno-omit-frame-pointer -o slow slow.c
flamegraph --alloc --format folded -o slow.folded -- ./slow >out 2>err &
fgpid=$!
sleep 1
kill -TERM $fgpid
rc=0
wait $fgpid || rc=$?
check_eq "SIGTERM to flamegraph: 128+15" "143" "$rc"
check_contains "SIGTERM to flamegraph: said" err "interrupted: the graph covers the first"
n=$(awk '{ print $NF }' slow.folded | sort -n | tail -1)
[ -n "$n" ] && [ "$n" -ge 1000 ] && [ "$n" -lt 400000 ] && pass ||
	fail "SIGTERM to flamegraph: the graph should hold part of slow's allocations, has '$n'"

# C++ new and delete reach malloc
if command -v g++ >/dev/null; then
	cat > news.cpp <<'CPP'
#include <vector>
__attribute__((noinline)) static int *make(int n) { return new int[n]; }
int main() { std::vector<int *> v; for (int i = 0; i < 100; i++) v.push_back(make(10)); for (auto p : v) delete[] p; return 0; }
CPP
	g++ -O1 -g -fno-omit-frame-pointer -o news news.cpp
	check_exit "C++ new" 0 flamegraph --alloc=count --format folded -o news.folded -- ./news
	# libstdc++ has no frame pointers: each frame's .eh_frame rule
	# carries the stack through operator new to make and main
	check_contains "C++ new: 100 calls of operator new, from make" news.folded ";main;make;operator new(\\[\\])? 100$"
fi

# garbage in the frame-pointer register (code without frame pointers):
# the walk stops, the program goes on, every allocation is counted
cc -O2 -g -o badframes "$FG_SRC/tests/e2e/alloc/badframes.c"
check_exit "garbage frame pointers" 0 flamegraph --alloc=count --alloc-unwind fp --format folded -o bf.folded -- ./badframes
check_contains "garbage frame pointers: the program ran to its end" out "^badframes: 5 allocations$"
check_contains "garbage frame pointers: each allocation counted" bf.folded "^badframes;with_rbp 5$"
# by default each frame is walked by its .eh_frame rule
# (whose tables do not describe the asm's push: the walk ends there)
check_exit "garbage frame pointers, eh" 0 flamegraph --alloc=count --format folded -o bfeh.folded -- ./badframes
check_contains "garbage frame pointers, eh: the program ran to its end" out "^badframes: 5 allocations$"
check_eq "garbage frame pointers, eh: each allocation counted" "5" "$(awk '$1 ~ /;with_rbp$/ { s += $NF } END { print s + 0 }' bfeh.folded)"

# a real multi-process program: cc runs cc1 and as (posix_spawn, exec),
# none of them built with frame pointers
printf 'int main(void) { return 0; }\n' > t.c
check_exit "cc -c under --alloc" 0 flamegraph --alloc --format folded -o cc.folded -- cc -O2 -c t.c -o t.o
[ -s t.o ] && pass || fail "cc -c under --alloc: no object file"
for p in cc cc1 as; do
	check_contains "cc -c: the allocations of $p" cc.folded "^$p;"
done

# the tracker's memory is bounded: past its table of distinct stacks
# (lowered here to 50) allocations are counted under one frame, said
cc -O2 -g -fno-omit-frame-pointer -o manystacks "$FG_SRC/tests/e2e/alloc/manystacks.c"
check_exit "1024 distinct stacks" 0 flamegraph --alloc=count --format folded -o ms.folded -- ./manystacks 10
check_eq "1024 distinct stacks: each its own" "1024" "$(grep -Ec ';(left|right);.*walk 1$' ms.folded || true)"
check_exit "1024 stacks, a table of 50" 0 env FLAMEGRAPH_ALLOC_MAX_STACKS=50 \
	flamegraph --alloc=count --format folded -o ms50.folded -- ./manystacks 10
check_eq "a table of 50: 50 stacks" "50" "$(wc -l < ms50.folded)"
check_contains "a table of 50: the rest under one frame" ms50.folded "^manystacks;\\[allocation stacks beyond the tracker's table\\] [0-9]+$"
check_eq "a table of 50: every allocation still counted" \
	"$(awk '{ s += $NF } END { print s }' ms.folded)" "$(awk '{ s += $NF } END { print s }' ms50.folded)"
check_contains "a table of 50: the warning" err "allocations came from more distinct stacks than the tracker keeps"

# a static program: nothing can be preloaded, said before it runs
if cc -static -o static three.c 2>/dev/null; then
	check_exit "static program" 3 flamegraph --alloc -o static.svg -- ./static
	check_contains "static program: why" err "linked statically.*link it dynamically"
	check_not_contains "static program: the error alone, no warning about its build first" err "warning:"
	[ ! -e static.svg ] && pass || fail "static program: a graph was written"
fi

# a program that is not there: the path it was given, checked
check_exit "--alloc, a missing program by its path" 1 flamegraph --alloc -o x.svg -- ./does-not-exist
check_contains "missing program: said so" err "program './does-not-exist' was not found or is not executable — check the path"
check_not_contains "missing program: no doubled ./ suggested" err "\./\./"

# what --alloc cannot go with
check_exit "--alloc --pid" 1 flamegraph --alloc --pid 1
check_contains "--alloc --pid: why" err "cannot attach to a running process"
check_exit "--alloc=bogus" 1 flamegraph --alloc=bogus -- ./counted 1
check_contains "--alloc=bogus: the views" err "not one of bytes\\|count\\|leaked\\|peak"
check_exit "--alloc --off-cpu" 1 flamegraph --alloc --off-cpu -- ./counted 1
check_contains "--alloc --off-cpu: conflict" err "conflicts with --off-cpu"
check_exit "--alloc leaked of a program that frees everything" 4 flamegraph --alloc=leaked -o none.svg -- true
check_contains "--alloc leaked: empty view said" err "leaked view of true is empty|no leak"
