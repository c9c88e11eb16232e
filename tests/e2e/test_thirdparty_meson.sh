# flamegraph-build on real Meson projects from their Debian sources
# (tests/lib/fetch-source.sh caches them):
#   wayland: tests that need their environment (scanner-test is a shell
#     script that fails without TEST_DATA_DIR, SED and WAYLAND_SCANNER),
#     a benchmark (fixed-benchmark, stopped with SIGTERM after 1.5 s: its
#     four loops take ten; up to wayland 1.22, which declares it),
#     options passed with -D;
#   fribidi: tests whose arguments name their input (the Unicode
#     conformance files), a test run by a Python script from the build
#     folder (its default working folder), a program named
#     fribidi-benchmark that stays a bin.
# ctest: LABELS thirdparty
command -v meson >/dev/null || { echo "meson not installed (apt-get install meson ninja-build)"; exit 77; }
require_perf
fetch() {
	fetch_source "$1" || return 1
	# never build in the cache: a private copy per run
	cp -r "$source_dir" "$2"
	ls "$2" > "$2.files"
}

# wayland --------------------------------------------------------------------
if fetch wayland wl; then
	# its documentation needs doxygen: off, as a user would turn it off
	wl() { flamegraph-build --manifest-path wl -D documentation=false "$@"; }
	check_exit "wayland --list" 0 wl --list
	check_contains "wayland: Meson's project name" err "configuring wayland \(release\) with meson"
	# wayland 1.23 dropped its benchmark: --list must then show none
	has_bench=no
	grep -qs "^benchmark(" wl/tests/meson.build && has_bench=yes
	if [ $has_bench = yes ]; then
		check_contains "wayland: the benchmark by Meson's name" out "^bench +fixed-benchmark, fixed-benchmark \(meson benchmark\)$"
	else
		check_contains "wayland: no benchmark (this version declares none)" out "^bench +\(none\)$"
	fi
	check_contains "wayland: the tests by Meson's names" out "^test .*scanner-test \(meson test\).*array-test \(meson test\)"
	check_contains "wayland: wayland-scanner is a bin" out "^bin +wayland-scanner"
	check_exit "wayland --list-names test" 0 wl --list-names test
	check_contains "wayland --list-names test: a name with spaces" out "^wayland-egl symbols check$"

	# scanner-test: a script; perf follows it into wayland-scanner
	check_exit "wayland --test scanner-test" 0 wl --test scanner-test -F 2000 --call-graph fp -o scanner.svg --folded scanner.folded
	check_contains "scanner-test: its environment honoured (it passed)" out "bad-identifier-request.xml PASS"
	check_contains "scanner-test: says what it profiles" err "profiling Meson test scanner-test: .*/tests/scanner-test.sh \(in .*/wl/build/flamegraph/release;"
	check_contains "scanner-test: the project's program was followed" scanner.folded "^wayland-scanner;"

	if [ $has_bench = yes ]; then
		# fixed-benchmark: stopped after 1.5 s of recording; the graph is kept
		# not through the function: $! must be flamegraph-build itself
		flamegraph-build --manifest-path wl -D documentation=false --bench fixed-benchmark \
			--call-graph fp -F 499 -o fixed.svg --folded fixed.folded >bench.out 2>bench.err &
		pid=$!
		# the benchmark's own process exists once perf records it (the child
		# execs only after the recorder attached)
		for _ in $(seq 1 900); do
			pgrep -f "$PWD/wl/build/flamegraph/release/tests/fixed-benchmark\$" >/dev/null && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		sleep 1.5
		kill -TERM "$pid" 2>/dev/null || true
		rc=0
		wait "$pid" || rc=$?
		check_eq "wayland --bench fixed-benchmark: stopped by SIGTERM" 143 "$rc"
		check_contains "fixed-benchmark: says what it profiles" bench.err "profiling Meson benchmark fixed-benchmark: .*/tests/fixed-benchmark"
		check_contains "fixed-benchmark: interrupted, graph kept" bench.err "interrupted: the graph covers the first"
		check_contains "fixed-benchmark: its functions, rooted in main" fixed.folded "^fixed-benchmark;.*main;noop_conversion [0-9]+$"
		check_eq "fixed-benchmark: the graph" "yes" "$([ -s fixed.svg ] && echo yes)"
		check_eq "fixed-benchmark: no process left" "" "$(pgrep -f "$PWD/wl/build/.*fixed-benchmark|manifest-path wl -D documentation=false --bench" || true)"
	else
		echo "note: this wayland declares no benchmark (1.23 dropped it): --bench is left out"
	fi
	# the project's programs were built with frame pointers
	exe=wl/build/flamegraph/release/src/wayland-scanner
	readelf --debug-dump=info "$exe" 2>/dev/null | grep -m3 DW_AT_producer > wl.producer || true
	check_contains "wayland built with frame pointers" wl.producer "-fno-omit-frame-pointer"
	check_exit "wayland --list again" 0 wl --list
	check_not_contains "wayland second run: no configure" err "configuring"
	ls wl > wl.after
	check_eq "wayland source tree: only build/ added" "build" "$(comm -13 wl.files wl.after | tr '\n' ' ' | sed 's/ $//')"
	[ $has_bench = no ] || cp fixed.svg "$FG_ARTIFACTS/thirdparty-wayland-fixed-benchmark.svg" 2>/dev/null || true
fi

# fribidi --------------------------------------------------------------------
if fetch fribidi fr; then
	fr() { flamegraph-build --manifest-path fr -D docs=false "$@"; }
	check_exit "fribidi --list" 0 fr --list
	check_contains "fribidi: fribidi-benchmark is a bin, by its name" out "^bin .*\bfribidi-benchmark\b"
	check_contains "fribidi: the conformance tests" out "^test .*BidiCharacterTest \(meson test\)"
	check_exit "fribidi --test BidiCharacterTest" 0 fr --test BidiCharacterTest --call-graph fp -F 499 -o bidi.svg --folded bidi.folded
	check_contains "BidiCharacterTest: its argument, the conformance file" err "profiling Meson test BidiCharacterTest: .*/BidiCharacterTest .*/test/unicode-conformance/BidiCharacterTest.txt"
	check_contains "BidiCharacterTest: passed" out "No errors found"
	check_contains "BidiCharacterTest: the library's functions, rooted in main" bidi.folded "^BidiCharacterTe[a-z]*;.*main;fribidi_get_par_embedding_levels_ex"
	check_exit "fribidi --bin fribidi-benchmark -- -n 4000" 0 fr --bin fribidi-benchmark --call-graph fp -F 499 -o fbench.svg --folded fbench.folded -- -n 4000
	check_contains "fribidi-benchmark: took the argument" out "^Iterations = 4000$"
	check_contains "fribidi-benchmark: its functions, rooted in main" fbench.folded "^fribidi-benchma[a-z]*;.*main;benchmark;fribidi_log2vis;"
	# a Python script that runs bin/fribidi relative to the build folder
	check_exit "fribidi --test CapRTL_explicit" 0 fr --test CapRTL_explicit -F 4000 --call-graph fp -o cap.svg --folded cap.folded
	check_contains "CapRTL_explicit: run by its script" err "profiling Meson test CapRTL_explicit: .*/test/test-runner.py bin/fribidi CapRTL "
	check_contains "CapRTL_explicit: the program it runs was followed" cap.folded "^fribidi;"
	check_exit "fribidi --test BidiCharacterTest, second run" 0 fr --test BidiCharacterTest --call-graph fp -F 99 -o bidi2.svg
	check_contains "fribidi second run: up to date" err "BidiCharacterTest is up to date"
	check_not_contains "fribidi second run: no configure" err "configuring"
	check_exit "fribidi --test BidiTst" 1 fr --test BidiTst
	check_contains "fribidi: did you mean" err "did you mean 'BidiTest'"
	ls fr > fr.after
	check_eq "fribidi source tree: only build/ added" "build" "$(comm -13 fr.files fr.after | tr '\n' ' ' | sed 's/ $//')"
	cp bidi.svg "$FG_ARTIFACTS/thirdparty-fribidi-BidiCharacterTest.svg" 2>/dev/null || true
fi
