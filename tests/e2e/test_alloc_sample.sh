# --alloc-sample: allocations sampled by bytes, each weighted by the
# inverse of its probability 1 - exp(-size/BYTES). The workload
# (tests/e2e/alloc/sampled.c) makes 652 000 allocations of four sizes
# from one function and keeps some; the exact run must match its own
# counts, and the sampled run's bytes, count and leaked must fall within
# six standard deviations of the exact figures. Each allocation of size
# s is taken independently (the countdown of bytes is memoryless) with
# probability p = 1 - exp(-s/B), so an estimate sum(x_i * w_i / p_i) has
# the variance sum(w_i^2 (1 - p_i) / p_i) (w: the block's bytes, or 1
# for the count); six deviations leave a chance of about 2e-9 per check
# that a correct sampler fails it.
cc -O2 -g -fno-omit-frame-pointer -o sampled "$FG_SRC/tests/e2e/alloc/sampled.c"
B=4096

# the leaf take_blocks' total in a folded file
leaf() {
	awk '{ n = split($1, f, ";"); if (f[n] == "take_blocks") s += $NF } END { print s + 0 }' "$1"
}

for view in bytes count leaked; do
	check_exit "exact $view" 0 flamegraph --alloc=$view --format folded -o exact.$view -- ./sampled
	mv out prog.exact
	check_exit "sampled $view" 0 flamegraph --alloc=$view --alloc-sample 4K --format folded -o sampled.$view -- ./sampled
	mv out prog.sampled
	check_contains "sampled $view: said approximate" err "sampled: one allocation per 4.0 KB allocated on average"
	check_contains "sampled $view: the summary says estimated" err "wrote sampled.$view \\($view, estimated from samples:"
done
check_same_file "the program printed the same plan both times" prog.exact prog.sampled

# what an exact recording holds, from the program's own plan, and each
# estimate's standard deviation
read -r want_bytes want_count want_leaked sd_bytes sd_count sd_leaked < <(awk -v B=$B '
	$1 == "size" {
		s = $2; n = $3; k = $4; p = 1 - exp(-s / B); q = (1 - p) / p
		bytes += s * n; count += n; leaked += s * k
		vb += n * s * s * q; vc += n * q; vl += k * s * s * q
	}
	END { printf "%d %d %d %.0f %.0f %.0f\n", bytes, count, leaked, sqrt(vb), sqrt(vc), sqrt(vl) }' prog.exact)
check_eq "exact bytes: the program's" "$want_bytes" "$(leaf exact.bytes)"
check_eq "exact count: the program's" "$want_count" "$(leaf exact.count)"
check_eq "exact leaked: the program's" "$want_leaked" "$(leaf exact.leaked)"

within() { # NAME EXACT ESTIMATE SD
	awk -v e="$2" -v g="$3" -v sd="$4" 'BEGIN { d = g - e; if (d < 0) d = -d; exit !(e > 0 && d <= 6 * sd + 1) }' &&
		pass || fail "$1: the estimate $3 is more than 6 standard deviations ($4 each) from the exact $2"
}
within "sampled bytes" "$(leaf exact.bytes)" "$(leaf sampled.bytes)" "$sd_bytes"
within "sampled count" "$(leaf exact.count)" "$(leaf sampled.count)" "$sd_count"
within "sampled leaked" "$(leaf exact.leaked)" "$(leaf sampled.leaked)" "$sd_leaked"
# the bound means something: the estimates are not exact copies, and six
# deviations are a few percent of the totals
awk -v b="$sd_bytes" -v w="$want_bytes" -v c="$sd_count" -v n="$want_count" \
	'BEGIN { exit !(6 * b < 0.02 * w && 6 * c < 0.1 * n) }' && pass ||
	fail "the bounds are too loose to test anything (bytes sd $sd_bytes, count sd $sd_count)"
[ "$(leaf exact.count)" != "$(leaf sampled.count)" ] && pass || fail "the sampled count equals the exact one: nothing was sampled"

# the graph says it is an estimate
check_exit "sampled SVG" 0 flamegraph --alloc --alloc-sample 64K -o s.svg -- ./sampled
check_contains "sampled SVG: the subtitle" s.svg "estimates: one allocation sampled per 64 KB allocated, on average"

# bad values
# a program that allocates less than the mean between samples: said so
cat > small.c <<'C'
#include <stdlib.h>
int main(void)
{
	for (int i = 0; i < 100; i++)
		free(malloc(100));
	return 0;
}
C
cc -O1 -g -fno-omit-frame-pointer -o small small.c
check_exit "nothing sampled: the view is empty" 4 flamegraph --alloc --alloc-sample 1M -o small.svg -- ./small
check_contains "nothing sampled: why" err "no allocation of ./small was sampled: one is recorded per 1.0 MB allocated on average, and it allocated less than that"
check_not_contains "nothing sampled: not blamed on an allocator of its own" err "made no allocation through malloc"

check_exit "--alloc-sample 0" 1 flamegraph --alloc --alloc-sample 0 -o x.svg -- ./sampled
check_contains "--alloc-sample 0: what to give" err "give the mean bytes between samples"
check_exit "--alloc-sample without --alloc" 1 flamegraph --alloc-sample 4K -o x.svg -- ./sampled
check_contains "--alloc-sample without --alloc: what to add" err "add --alloc"

# sampled, most blocks are libc's own: malloc_usable_size still answers
# for them (and for ours)
cat > usable.c <<'C'
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	size_t bad = 0;
	for (int i = 0; i < 10000; i++) {
		char *p = malloc(100 + i % 50);
		if (!p || malloc_usable_size(p) < (size_t)(100 + i % 50))
			bad++;
		free(p);
	}
	printf("usable too small: %zu\n", bad);
	return bad != 0;
}
C
cc -O2 -g -fno-omit-frame-pointer -o usable usable.c
check_exit "malloc_usable_size, sampled" 0 flamegraph --alloc --alloc-sample 64K --format folded -o usable.folded -- ./usable
check_contains "malloc_usable_size, sampled: every block big enough" out "^usable too small: 0$"
