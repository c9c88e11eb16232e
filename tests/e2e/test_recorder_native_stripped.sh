# --recorder native on stripped programs (no debug info, .eh_frame kept):
# built without frame pointers, the unwind tables tell so, and the
# recorder says it copies 64 KB of the stack with each sample and does;
# built with them, no such note and small copies beside the kernel's
# walk. Both graphs hold the whole call chain. No perf on PATH; no process
# or file of ours is left after any run.
# ctest: RESOURCE_LOCK cpu
. "$FG_SRC/tests/lib/noperf.sh"
native_recorder_or_skip
command -v strip >/dev/null || { echo "no strip (binutils)"; exit 77; }

noperf_path noperf || finish
NOPERF=$PWD/noperf
fgn() { PATH=$NOPERF flamegraph --recorder native "$@"; }

# main -> f0 -> f1 ... f5 -> leaf; every function keeps locals on the
# stack, so each has a frame with or without frame pointers; f0's 4 KB
# reach past a hybrid sample's small copy. -rdynamic keeps the names in
# .dynsym, which strip leaves.
cat > work.c <<'C'
#include <stdlib.h>
#include <string.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) unsigned long leaf(unsigned long *v)
{
	unsigned long x = v[0] ^ v[1];
	for (unsigned i = 0; i < 100000; i++)
		x = (x ^ (x >> 31)) * 0x94d049bb133111ebul + i;
	sink = x;
	return x;
}
#define F(n, next) __attribute__((noinline)) unsigned long f##n(unsigned long *in) \
	{ unsigned long v[2] = { in[0] * 3 + n, in[1] }; v[1] ^= next(v); v[0] += next(v); return v[0] ^ v[1]; }
F(5, leaf) F(4, f5) F(3, f4) F(2, f3) F(1, f2)
__attribute__((noinline)) unsigned long f0(unsigned long seed)
{
	unsigned long big[512];
	memset(big, (int)(seed & 0x7f), sizeof(big));
	big[seed & 511] = seed;
	return f1(big + (seed & 255));
}
int main(int argc, char **argv)
{
	long ms = argc > 1 ? strtol(argv[1], NULL, 10) : 300;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sink = f0(sink);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return 0;
}
C
# every process of this test runs a program of this unique name
w=./stripped-$$
cc -O2 -fomit-frame-pointer -rdynamic -o "$w-nofp" work.c
cc -O2 -fno-omit-frame-pointer -rdynamic -o "$w-fp" work.c
strip --strip-all "$w-nofp" "$w-fp"
if readelf -S "$w-nofp" | grep -q '\.debug_info'; then
	fail "strip left debug info in $w-nofp"
fi

check_clean() {
	local what=$1 left
	check_no_processes_left "$what" && pass
	left=$(find . "$TMPDIR" -name '.flamegraph-*' | head -5)
	[ -z "$left" ] && pass || { fail "$what: files left: $left"; rm -rf $left; }
}

# the bytes a sample took, in KB, from the closing note's "(N samples, ...,
# SIZE KB|MB)"
kb_per_sample() {
	sed -n 's/.*(\([0-9]*\) samples, .*, \([0-9.]*\) \([KMG]\)B)$/\1 \2 \3/p' err | tail -1 |
		awk '{ kb = $2 * ($3 == "G" ? 1048576 : $3 == "M" ? 1024 : 1); if ($1 > 0) printf "%d\n", kb / $1 }'
}

# --- without frame pointers: whole copies, said in a note ---------------------------
check_exit "no frame pointers" 0 fgn --folded nofp.folded -o nofp.svg -- "$w-nofp" 400
check_contains "no frame pointers: a note says the copies are whole" err \
	"built without frame pointers: the native recorder copies 64 KB"
check_contains "no frame pointers: the whole chain" nofp.folded "main;f0;f1;f2;f3;f4;f5;leaf [0-9]+$"
kb=$(kb_per_sample)
[ "${kb:-0}" -ge 16 ] && pass || fail "no frame pointers: ${kb:-no} KB a sample, not whole copies"
check_clean "no frame pointers"

# --- with frame pointers, stripped too: hybrid samples, no note ----------------------
check_exit "frame pointers" 0 fgn --folded fp.folded -o fp.svg -- "$w-fp" 400
check_not_contains "frame pointers: no such note" err "built without frame pointers"
check_contains "frame pointers: the whole chain" fp.folded "main;f0;f1;f2;f3;f4;f5;leaf [0-9]+$"
kb=$(kb_per_sample)
[ -n "$kb" ] && [ "$kb" -lt 16 ] && pass || fail "frame pointers: ${kb:-no} KB a sample, not small copies"
check_clean "frame pointers"

# --- a launcher (env) of the program without them: its program is not
# judged before it runs, so the copies stay small, and no such note ----
check_exit "env, no frame pointers" 0 fgn --folded env.folded -o env.svg -- env "$w-nofp" 400
check_not_contains "env: no note" err "built without frame pointers"
kb=$(kb_per_sample)
[ -n "$kb" ] && [ "$kb" -lt 16 ] && pass || fail "env: ${kb:-no} KB a sample, not small copies"
check_clean "env"
