# flamegraph-build on a real plain-Make project without bear: Debian's
# bzip2 from its unpacked source, run from its folder with no argument
# but the target (libbz2.a made again from our objects; its stacks rooted
# in main, which its own build, without frame pointers, loses); the
# tree stays as it was.
# ctest: LABELS thirdparty
require_perf
snapshot() { find "$1" -mindepth 1 -path "$1/build" -prune -o -printf '%p %T@ %s %m\n' | LC_ALL=C sort; }

if fetch_source bzip2; then
	dir=$source_dir
	cp -a "$dir" bzip2-src
	snapshot bzip2-src > bz-before.txt
	awk 'BEGIN { srand(5); for (i = 0; i < 60000; i++)
		printf "%d,%d,%x sample line of text\n", i, int(rand() * 1e6), int(rand() * 65536) }' > small.txt
	check_exit "bzip2 --bin bzip2" 0 sh -c "cd bzip2-src && flamegraph-build --bin bzip2 -F 499 -o ../bz.svg --folded ../bz.folded -- -c -9 ../small.txt > ../small.bz2"
	check_contains "bzip2: libbz2.a made again from our objects" err "archiving libbz2.a"
	check_contains "bzip2: its block sort, rooted in main" bz.folded "^bzip2;.*main;compress;.*BZ2_blockSort"
	# but the process's own start and end: the loader, exit's handlers
	# (exit, or glibc's internal name for it, __GI_exit),
	# a sample before the first user frame; where the loader and libc
	# keep no symbols of their own (Debian 13), their frames are named
	# after them: [ld-linux-x86-64.so.2], __libc_start_main;[libc.so.6];exit
	grep -v ';main;' bz.folded | grep -v '_dl_start\|^bzip2;\[unknown\]\|;__libc_start_call_main;\(__GI_\)\?exit;\|^bzip2;[a-z_]*exc_page_fault;\|^bzip2;\[ld-linux[^];]*\];\|;__libc_start_main;\[libc\.so\.6\];exit;' >unrooted.txt || true
	check_eq "bzip2: every stack rooted in main, the loader or exit" "" "$(head -3 unrooted.txt)"
	check_exit "bzip2: the output decompresses" 0 sh -c "bzip2 -dc small.bz2 | cmp - small.txt"
	snapshot bzip2-src > bz-after.txt
	check_same_file "bzip2: the user's tree is unchanged" bz-before.txt bz-after.txt
	cp bz.svg "$FG_ARTIFACTS/thirdparty-bzip2.svg" 2>/dev/null || true
else
	fail "apt-get source bzip2 failed"
fi
