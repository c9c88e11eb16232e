# A library that keeps only its exported symbols (stripped, with a
# .gnu_debuglink to its separate debug file, as distributions ship them:
# Debian 13's libc is one) has its other functions named after it,
# "[libwork.so]", as perf does; flamegraph says so once, with what to
# install, streamed and from a file. With the debug file beside it, they
# are named and the library is not in the note.
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
command -v objcopy >/dev/null || { echo "objcopy (binutils) not installed"; exit 77; }
cc -O2 -g -fPIC -fno-omit-frame-pointer -shared -o libwork.so "$FG_SRC/tests/e2e/perfdata/stripped_lib.c"
objcopy --only-keep-debug libwork.so libwork.debug
strip --strip-unneeded libwork.so
objcopy --add-gnu-debuglink=libwork.debug libwork.so
cc -O2 -g -fno-omit-frame-pointer -o uses "$FG_SRC/tests/e2e/perfdata/stripped_main.c" \
	-L. -lwork -Wl,-rpath,"$PWD"
mv libwork.debug kept.debug

for mode in --stream --no-stream; do
	check_exit "$mode: without the debug file" 0 \
		flamegraph $mode --call-graph fp -o a.svg --folded a.folded -- ./uses 400
	check_contains "$mode: the note names the library, the count, the fix" err \
		"note: ([0-9]+ sampled addresses in .*/libwork\.so show as \[libwork\.so\], without a symbol: it keeps only its exported symbols|sampled addresses show as their library's name, without a symbol \((.*, )?[0-9]+ in .*/libwork\.so[,)]).* — install (it|them) \(Debian and Ubuntu: .*the library's -dbg or -dbgsym package; Fedora: dnf debuginfo-install\) to name them"
	check_contains "$mode: the frames named after the library" a.folded ";main;(work;)?\[libwork\.so\] [0-9]+$"
done

mv kept.debug libwork.debug
for mode in --stream --no-stream; do
	check_exit "$mode: with the debug file" 0 \
		flamegraph $mode --call-graph fp -o b.svg --folded b.folded -- ./uses 400
	# (other libraries may be named: Debian 13's ld.so and libc are)
	check_not_contains "$mode: the library not named" err "without a symbol.*libwork\.so|libwork\.so show as"
	check_contains "$mode: the library's own function named" b.folded ";main;(work;)?hot_loop [0-9]+$"
done
