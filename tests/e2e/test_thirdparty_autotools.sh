# flamegraph-build on gzip from its Debian source: an autotools project
# whose configure.ac Debian's patches left newer than its configure, so
# it is regenerated (autoreconf -fi) in a copy; gnulib's library in lib/
# and the generated sources are made before the program. Run from the
# unpacked folder with no argument but the target; the tree stays as it
# was, timestamps included.
# ctest: LABELS thirdparty
for tool in autoreconf automake makeinfo make; do
	command -v $tool >/dev/null || { echo "$tool not installed (apt-get install autoconf automake texinfo make)"; exit 77; }
done
require_perf
fetch_source gzip || finish
dir=$source_dir
# never build in the cache: a private copy per run, timestamps kept
cp -a "$dir" gzip-src
snapshot() { find gzip-src -mindepth 1 -path gzip-src/build -prune -o -printf '%p %T@ %s %m\n' | LC_ALL=C sort; }
snapshot > before.txt
head -c 4000000 /dev/urandom | base64 > input.txt

check_exit "gzip --list" 0 sh -c 'cd gzip-src && flamegraph-build --list'
check_contains "gzip: the program is a bin" out "^bin +gzip$"
check_contains "gzip: stale configure regenerated in a copy" err "newer than what was generated from it: running autoreconf -fi in a copy"
check_exit "gzip --bin gzip" 0 sh -c "cd gzip-src && flamegraph-build --bin gzip -F 499 -o ../gzip.svg --folded ../gzip.folded -- -c $PWD/input.txt > /dev/null"
check_contains "gzip: deflate's functions, rooted in main" gzip.folded "^gzip;.*main;treat_file;.*zip;deflate;(longest_match|fill_window|ct_tally|compress_block)"
readelf --debug-dump=info gzip-src/build/flamegraph/release/gzip 2>/dev/null | grep -m1 DW_AT_producer > producer || true
check_contains "gzip: built with frame pointers" producer "-fno-omit-frame-pointer"
check_exit "gzip again" 0 sh -c "cd gzip-src && flamegraph-build --bin gzip -F 499 -o ../gzip2.svg -- -c $PWD/input.txt > /dev/null"
check_contains "gzip again: up to date" err "gzip is up to date"
check_not_contains "gzip again: nothing regenerated or configured" err "autoreconf|configuring"
snapshot > after.txt
check_same_file "gzip: the user's tree is unchanged" before.txt after.txt
cp gzip.svg "$FG_ARTIFACTS/thirdparty-gzip.svg" 2>/dev/null || true
finish
