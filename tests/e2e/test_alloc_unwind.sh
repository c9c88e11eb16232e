# The allocation interposer's unwinder: by default every frame is walked
# by its own .eh_frame rule, so a program built without frame pointers
# (-O2 -fomit-frame-pointer) has whole allocating stacks that reach main,
# and so do allocations made inside libc and libstdc++ (built without
# frame pointers) for the program's functions; the frame-pointer walk
# (--alloc-unwind fp) loses the chain. The .eh_frame walk keeps the exact
# counts, threads and fork.
. "$FG_SRC/tests/lib/stacks.sh" # thread_start_frame
cc -O2 -g -fomit-frame-pointer -o nofp "$FG_SRC/tests/e2e/alloc/nofp.c"
cc -O2 -g -o badframes "$FG_SRC/tests/e2e/alloc/badframes.c"
check_exit "no frame pointers: default" 0 flamegraph --alloc=count --format folded -o auto.folded -- ./nofp
check_contains "no frame pointers: the stack reaches main" auto.folded "^nofp;(.*;)?main;level1;level2;leaf 10$"
check_exit "no frame pointers: --alloc-unwind fp" 0 flamegraph --alloc=count --alloc-unwind fp --format folded -o fp.folded -- ./nofp
check_not_contains "--alloc-unwind fp: the chain is lost" fp.folded "main;level1;level2;leaf"
check_eq "--alloc-unwind fp: the allocations still counted" "10" "$(awk '$1 ~ /;leaf$/ { s += $NF } END { print s + 0 }' fp.folded)"

# exact counts with threads, and a fork, through the .eh_frame walk
cc -O2 -g -fno-omit-frame-pointer -pthread -o counted "$FG_SRC/tests/e2e/alloc/counted.c"
check_exit "--alloc-unwind eh: counted" 0 flamegraph --alloc --alloc-unwind eh --format folded -o eh.bytes -- ./counted 40
for f in a_malloc a_calloc a_realloc a_aligned a_leak; do
	check_eq "--alloc-unwind eh: bytes of $f" "$(awk -v f=$f '$1 == f { print $3 }' out)" \
		"$(awk -v f=$f '{ n = split($1, s, ";"); if (s[n] == f) t += $NF } END { print t + 0 }' eh.bytes)"
done
check_contains "--alloc-unwind eh: a thread's stack" eh.bytes "^counted;(.*;)?$(thread_start_frame);worker;round_of;a_malloc [0-9]+$"
check_exit "--alloc-unwind eh: fork" 0 flamegraph --alloc --alloc-unwind eh --format folded -o ehfork.folded -- ./counted 10 fork
check_contains "--alloc-unwind eh: fork, two processes" err "; [0-9]+ stacks, 2 processes"

if command -v g++ >/dev/null; then
	cat > news.cpp <<'CPP'
#include <vector>
__attribute__((noinline)) static int *make(int n) { return new int[n]; }
int main() { std::vector<int *> v; for (int i = 0; i < 100; i++) v.push_back(make(10)); for (auto p : v) delete[] p; return 0; }
CPP
	g++ -O1 -g -fno-omit-frame-pointer -o news news.cpp
	check_exit "--alloc-unwind eh: C++ new" 0 flamegraph --alloc=count --alloc-unwind eh --format folded -o news.folded -- ./news
	check_contains "--alloc-unwind eh: through libstdc++ to make" news.folded ";main;make;operator new(\\[\\])? 100$"
fi
check_exit "--alloc-unwind without --alloc" 1 flamegraph --alloc-unwind eh -o x.svg -- ./nofp
check_contains "--alloc-unwind without --alloc: what to add" err "add --alloc"

# the .eh_frame walk's cache against backtrace() itself, stack by stack
# (FLAMEGRAPH_ALLOC_UNWIND=eh-check runs both): the same stacks, and the
# cache walked every one of them (nothing left to backtrace())
g++ -O1 -g -fomit-frame-pointer -o newsnofp news.cpp 2>/dev/null || cp nofp newsnofp
for prog in "./nofp" "./counted 20" "./counted 10 fork" "./newsnofp"; do
	rm -rf rec && mkdir rec
	check_exit "eh-check: $prog" 0 env LD_PRELOAD="$FG_BIN/libflamegraph-alloc.so" FLAMEGRAPH_ALLOC_OUT="$PWD/rec" FLAMEGRAPH_ALLOC_UNWIND=eh-check $prog
	check_eq "eh-check: $prog: no stack differs from backtrace()'s" "" "$(grep -h '^eh-mismatch ' rec/* | grep -v ' 0$' || true)"
	check_eq "eh-check: $prog: every stack walked by the cache" "" "$(grep -h '^eh-slow ' rec/* | grep -v ' 0$' || true)"
	[ "$(grep -hc '^eh-mismatch 0$' rec/* | awk '{ s += $1 } END { print s + 0 }')" -ge 1 ] && pass || fail "eh-check: $prog: no check was made"
done
# garbage in the frame-pointer register, a frame its tables do not
# describe: the cache hands those stacks to backtrace()
rm -rf rec && mkdir rec
check_exit "eh-check: badframes" 0 env LD_PRELOAD="$FG_BIN/libflamegraph-alloc.so" FLAMEGRAPH_ALLOC_OUT="$PWD/rec" FLAMEGRAPH_ALLOC_UNWIND=eh-check ./badframes

# dlclose goes through the interposer (which drops its cached rules: a
# library loaded later may take the unloaded one's place)
cat > dl.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	for (int i = 0; i < 3; i++) {
		void *h = dlopen("libz.so.1", RTLD_NOW), *p;
		if (!h || !(p = malloc(100)))
			return 1;
		free(p);
		if (dlclose(h))
			return 2;
	}
	puts("dl: ok");
	return 0;
}
C
cc -O2 -g -o dl dl.c -ldl
rm -rf rec && mkdir rec
check_exit "eh-check: dlopen and dlclose" 0 env LD_PRELOAD="$FG_BIN/libflamegraph-alloc.so" FLAMEGRAPH_ALLOC_OUT="$PWD/rec" FLAMEGRAPH_ALLOC_UNWIND=eh-check ./dl
check_contains "dlclose: the program ran" out "^dl: ok$"
check_eq "dlclose: no stack differs" "eh-mismatch 0" "$(grep -h '^eh-mismatch ' rec/*)"

# memory libc and libstdc++ allocate for the program's functions: the
# stack goes on through them to the function that called them
cc -O1 -g -fno-omit-frame-pointer -o libcalls "$FG_SRC/tests/e2e/alloc/libcalls.c"
check_exit "libc's allocations" 0 flamegraph --alloc --format folded -o libcalls.folded -- ./libcalls
bytes_under() { awk -v f=";main;$1;" 'index($1 ";", f) { s += $NF } END { print s + 0 }' libcalls.folded; }
check_eq "strdup: its caller's 12 bytes" "12" "$(bytes_under dup_it)"
check_eq "strndup: its caller's 6 bytes" "6" "$(bytes_under ndup_it)"
[ "$(bytes_under format_it)" -gt 0 ] && pass || fail "asprintf: nothing under format_it: $(cat libcalls.folded)"
[ "$(bytes_under open_it)" -gt 0 ] && pass || fail "fopen: nothing under open_it: $(cat libcalls.folded)"
if command -v g++ >/dev/null; then
	g++ -O1 -g -fno-omit-frame-pointer -o strings "$FG_SRC/tests/e2e/alloc/strings.cpp"
	check_exit "std::string and std::vector" 0 flamegraph --alloc=count --format folded -o strings.folded -- ./strings
	check_contains "std::string: through libstdc++ to its maker" strings.folded ";main;make_string;.*operator new(\[\])? 50$"
	check_contains "std::vector: through libstdc++ to its filler" strings.folded ";main;fill_vector;.*operator new(\[\])? [0-9]+$"
fi
