# Allocation graphs against heaptrack on a real project: Debian's bzip2,
# built from its source with frame pointers, compresses and decompresses
# a file under heaptrack and under flamegraph --alloc. For each of
# bzip2's own allocating functions, the allocations and the bytes live at
# the peak (inclusive, so that heaptrack's frame order does not matter)
# are the same in both, and neither sees a leak. (The stdio buffers
# that libc allocates are left out: libc has no frame pointers, so our
# stacks of them stop in libc, where heaptrack's unwinder goes on.)
# ctest: LABELS thirdparty
if ! command -v heaptrack >/dev/null || ! command -v heaptrack_print >/dev/null; then
	echo "heaptrack is not installed (Debian package heaptrack)" >&2
	exit 77
fi
fetch_source bzip2 || return 0
dir=$source_dir
cc -O2 -g -fno-omit-frame-pointer -D_FILE_OFFSET_BITS=64 -o bzip2 \
	"$dir"/{blocksort,huffman,crctable,randtable,compress,decompress,bzlib,bzip2}.c
awk 'BEGIN { srand(7); for (i = 0; i < 40000; i++)
	printf "%d,%d,%x sample line of text\n", i, int(rand() * 1e6), int(rand() * 65536) }' > in.txt

# inclusive cost of function FN in folded FILE (heaptrack's frames carry
# " (file.c)" after the name, and its lines may end in ";"; heaptrack 1.5
# names an inlined frame after its callers too, "snocString::mkCell::
# myMalloc": bzip2's names are C, so the last part is the function)
incl() {
	awk -v fn="$2" '{ c = $NF; s = substr($0, 1, length($0) - length(c) - 1); k = split(s, fr, ";")
		hit = 0; for (i = 1; i <= k; i++) { x = fr[i]; sub(/ \(.*\)$/, "", x); sub(/.*::/, "", x); if (x == fn) hit = 1 }
		if (hit) t += c } END { print t + 0 }' "$1"
}

compare() { # NAME ARGS...
	local name=$1
	shift
	rm -f ht.*
	check_exit "$name under heaptrack" 0 heaptrack -o ht ./bzip2 "$@"
	for cost in allocations peak leaked; do
		heaptrack_print --print-flamegraph ht.$cost --flamegraph-cost-type $cost ht.zst >/dev/null 2>&1 ||
			heaptrack_print --print-flamegraph ht.$cost --flamegraph-cost-type $cost ht.gz >/dev/null 2>&1 || true
	done
	[ -s ht.allocations ] && pass || { fail "$name: heaptrack_print wrote no flame graph data"; return; }
	for view in count peak; do
		check_exit "$name --alloc=$view" 0 flamegraph --alloc=$view --format folded -o us.$view -- ./bzip2 "$@"
	done
	# bzip2 frees what it allocates: an empty view, said (exit 4)
	check_exit "$name --alloc=leaked" 4 flamegraph --alloc=leaked --format folded -o us.leaked -- ./bzip2 "$@"
	check_contains "$name --alloc=leaked: no leak" err "freed every block it allocated"
	for fn in $FUNCS; do
		check_eq "$name: allocations in $fn" "$(incl ht.allocations "$fn")" "$(incl us.count "$fn")"
		check_eq "$name: bytes live at the peak in $fn" "$(incl ht.peak "$fn")" "$(incl us.peak "$fn")"
		check_eq "$name: heaptrack sees no leak in $fn either" "0" "$(incl ht.leaked "$fn")"
	done
	[ "$(incl us.count BZ2_bzCompressInit)$(incl us.count BZ2_bzDecompressInit)" != "00" ] && pass ||
		fail "$name: no allocation of bzip2's own functions seen"
}

FUNCS="BZ2_bzCompressInit BZ2_bzWriteOpen myMalloc snocString"
compare "bzip2 -k" -k -f in.txt
FUNCS="BZ2_bzDecompressInit BZ2_bzReadOpen myMalloc snocString"
mv in.txt.bz2 in2.txt.bz2
compare "bzip2 -d" -d -k -f in2.txt.bz2
