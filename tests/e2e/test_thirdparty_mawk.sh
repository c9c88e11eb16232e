# flamegraph-build on mawk from its Debian source: autoconf without
# automake (configure.in, a hand-written aclocal.m4 and Makefile.in). Its
# configure is current, so it runs from the user's tree, out of tree;
# the generated Makefile has no automake variables, so its programs come
# from the link rules of a dry run. Run from the unpacked folder with no
# argument but the target; the tree stays as it was, timestamps included.
# ctest: LABELS thirdparty
command -v make >/dev/null || { echo "make not installed"; exit 77; }
require_perf
fetch_source mawk || finish
dir=$source_dir
cp -a "$dir" mawk-src
snapshot() { find mawk-src -mindepth 1 -path mawk-src/build -prune -o -printf '%p %T@ %s %m\n' | LC_ALL=C sort; }
snapshot > before.txt
prog='BEGIN { for (i = 0; i < 2000000; i++) { s += i % 7; a[i % 100] = s }; print s }'

check_exit "mawk --list" 0 sh -c 'cd mawk-src && flamegraph-build --list'
check_contains "mawk: the program its link rule writes is a bin" out "^bin +.*\bmawk\b"
check_not_contains "mawk: its configure is current (no autoreconf)" err "autoreconf"
check_contains "mawk: configured out of tree" err "configuring .* \(release\) in .*/mawk-src/build/flamegraph/release$"
check_exit "mawk --bin mawk" 0 sh -c "cd mawk-src && flamegraph-build --bin mawk -F 499 -o ../mawk.svg --folded ../mawk.folded -- '$prog'"
check_contains "mawk: ran" out "^5999995$"
check_contains "mawk: the interpreter's functions, rooted in main" mawk.folded "^mawk;.*main;execute"
readelf --debug-dump=info mawk-src/build/flamegraph/release/mawk 2>/dev/null | grep -m1 DW_AT_producer > producer || true
check_contains "mawk: built with frame pointers" producer "-fno-omit-frame-pointer"
check_exit "mawk again" 0 sh -c "cd mawk-src && flamegraph-build --bin mawk -F 499 -o ../mawk2.svg -- '$prog'"
check_contains "mawk again: up to date" err "mawk is up to date"
check_not_contains "mawk again: not configured again" err "configuring"
snapshot > after.txt
check_same_file "mawk: the user's tree is unchanged" before.txt after.txt
cp mawk.svg "$FG_ARTIFACTS/thirdparty-mawk.svg" 2>/dev/null || true
finish
