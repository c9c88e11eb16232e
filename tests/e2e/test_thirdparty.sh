# flamegraph-build on real third-party CMake projects, fetched with
# `apt-get source` (tests/lib/fetch-source.sh caches them): lz4, whose CLI
# target lz4cli writes the executable lz4, and cJSON, whose CTest tests run
# in their own folder and are over in about a millisecond.
# ctest: LABELS thirdparty
require_perf
fetch() {
	fetch_source "$1" || return 1
	# never build in the cache: a private copy per run
	cp -r "$source_dir" "$2"
}

# lz4 -----------------------------------------------------------------------
if fetch lz4 lz4; then
	check_exit "lz4 --list" 0 flamegraph-build --manifest-path lz4/build/cmake --list
	check_contains "lz4 lists lz4cli writing lz4" out "^bin .*lz4cli \(lz4\)"
	# a compressible input: ~20 MB of repetitive text
	awk 'BEGIN { srand(7); for (i = 0; i < 420000; i++)
		printf "record %d level %d the quick brown fox jumps over\n", i % 977, int(rand() * 50) }' > input.txt
	check_eq "input is about 20 MB" "yes" "$([ "$(stat -c %s input.txt)" -gt 19000000 ] && echo yes)"
	check_exit "lz4 --bin lz4 -- -b1" 0 flamegraph-build --manifest-path lz4/build/cmake --bin lz4 \
		-o lz4.svg --folded lz4.folded -- -b1 input.txt
	check_contains "lz4 benchmark ran" err "input.txt"
	check_contains "lz4 graph: its compressor" lz4.folded "LZ4_compress_fast_extState|LZ4_compress_generic"
	check_contains "lz4 graph: called from its benchmark" lz4.folded "BMK_benchMem;LZ4_compress_fast"
	"$FG_SRC/tests/tools/svg-frames" lz4.svg > lz4.frames
	check_contains "lz4 svg frames" lz4.frames "LZ4_compress"
	cp lz4.svg "$FG_ARTIFACTS/thirdparty-lz4.svg" 2>/dev/null || true
	exe=lz4/build/cmake/build/flamegraph/release/lz4
	check_eq "lz4 built in the flamegraph build dir" "yes" "$([ -x "$exe" ] && echo yes)"
	readelf --debug-dump=info "$exe" 2>/dev/null | grep -m3 DW_AT_producer > lz4.producer || true
	check_contains "lz4 built with frame pointers" lz4.producer "-fno-omit-frame-pointer"
	check_contains "lz4 built with -O2 -g" lz4.producer "-O2"
	# nothing but build/flamegraph was added to the source tree
	check_eq "lz4 source tree untouched" "flamegraph" "$(ls lz4/build/cmake/build)"
	check_exit "lz4 second run" 0 flamegraph-build --manifest-path lz4/build/cmake --bin lz4 -o lz4b.svg -- -b1 -i1 input.txt
	check_contains "lz4 second run: up to date" err "lz4cli is up to date"
	check_not_contains "lz4 second run: no configure" err "configuring"
fi

# cJSON ---------------------------------------------------------------------
if fetch cjson cjson; then
	# its tests are built only with ENABLE_CJSON_TEST (on by default in
	# 1.7.15; say so anyway, as users of other versions must)
	cj() { flamegraph-build --manifest-path cjson -D ENABLE_CJSON_TEST=On "$@"; }
	# a high frequency, but within the kernel's limit, which it lowers
	# when sampling takes too long (on a loaded machine): read just before
	fast() { local l; l=$(cat /proc/sys/kernel/perf_event_max_sample_rate); echo $((l < 20000 ? l : 20000)); }
	check_exit "cjson --test parse_hex4 -F high" 0 cj --test parse_hex4 -F "$(fast)" -o hex.svg --folded hex.folded
	check_contains "cjson: says it profiles the CTest test" err "CTest test parse_hex4"
	check_contains "cjson graph: the test case" hex.folded "parse_hex4_should_parse_all_combinations"
	check_contains "cjson graph: the parser under it" hex.folded "parse_hex4_should_parse_all_combinations;parse_hex4"
	check_eq "cjson outputs where we ran" "yes" "$([ -s hex.svg ] && echo yes)"
	cp hex.svg "$FG_ARTIFACTS/thirdparty-cjson-parse_hex4.svg" 2>/dev/null || true
	# -Werror project: our flags must not add warnings (the build passed)
	check_contains "cjson is a -Werror project" cjson/build/flamegraph/release/CMakeCache.txt "ENABLE_CUSTOM_COMPILER_FLAGS:BOOL=ON"

	# about a millisecond of work at the default 997 Hz: usually no sample
	# at all (exit 4, the old graph kept); when start-up takes one or two,
	# a graph with a warning. Either way the message says to raise -F.
	echo "old graph" > quick.svg
	rc=0
	cj --test parse_number -o quick.svg >out 2>err || rc=$?
	# (how many samples it gets depends on the machine: fewer than ten
	# bring the warning, more — a slow or loaded machine — a plain graph)
	n=$(grep -oE 'wrote .*\(([0-9]+) samples' err | grep -oE '[0-9]+ samples' | grep -oE '[0-9]+' || true)
	if [ "$rc" == 0 ] && [ -n "$n" ] && [ "$n" -ge 10 ]; then
		check_not_contains "parse_number at 997 Hz: $n samples, no warning" err "warning: only"
		check_contains "parse_number at 997 Hz: $n samples, a graph" quick.svg "parse_number"
	elif [ "$rc" == 0 ]; then
		check_contains "parse_number at 997 Hz: few samples, says so" err "warning: only [0-9] samples? (was|were) recorded"
		check_contains "parse_number at 997 Hz: suggests a higher -F" err "-F 20000"
	else
		check_eq "parse_number at 997 Hz: no samples (exit 4)" 4 "$rc"
		check_contains "parse_number at 997 Hz: says so" err "no samples were recorded"
		check_contains "parse_number at 997 Hz: suggests a higher -F" err "-F 20000"
		check_eq "parse_number at 997 Hz: old graph kept" "old graph" "$(cat quick.svg)"
	fi
	# at 1 Hz (a 1 s period) it gets no sample: exit 4
	echo "old graph" > quick.svg
	rc=0
	cj --test parse_number -F 1 -o quick.svg >out 2>err || rc=$?
	check_eq "cjson --test parse_number: no samples (exit 4)" 4 "$rc"
	check_contains "no samples: says so" err "flamegraph-build: error: no samples were recorded"
	check_contains "no samples: suggests a higher -F" err "-F 20000"
	check_contains "no samples: suggests more work" err "more work"
	check_eq "no samples: old graph kept" "old graph" "$(cat quick.svg)"
	# and with a higher frequency the same test does give a graph
	check_exit "cjson --test parse_number -F high" 0 cj --test parse_number -F "$(fast)" -o num.svg --folded num.folded
	check_contains "parse_number graph" num.folded "parse_number"
fi
