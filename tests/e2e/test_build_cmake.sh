# flamegraph-build on the CMake example with real cmake, cc and perf: each
# run's graph is checked, not just the exit code.
require_perf
cp -r "$FG_SRC/examples/cmake" proj
rm -rf proj/build
# a git repository, so the graph's subtitle carries its provenance
(cd proj && git init -q && git add . && git -c user.email=t@example.com -c user.name=t commit -qm init)
fgb() { flamegraph-build --manifest-path "$PWD/proj" "$@"; }

# --bin stress2 with trailing program arguments
check_exit "--bin stress2" 0 fgb --bin stress2 -o stress2.svg --folded stress2.folded -- --rounds 20
check_contains "stress2 ran with its arguments" out "stress2: 20 rounds"
check_contains "stress2 graph: fill_table" stress2.folded "main;fill_table"
check_contains "stress2 graph: sort_phase" stress2.folded "sort_phase;sort_work"
check_contains "stress2 graph: checksum (default feature)" stress2.folded "checksum_block"
check_not_contains "stress2 graph: no fast hash by default" stress2.folded "hash_fast_mix"
"$FG_SRC/tests/tools/svg-frames" stress2.svg > frames.txt
check_contains "svg frames" frames.txt "fill_table"
check_contains "svg subtitle has the commit" stress2.svg "(main|master) @ [0-9a-f]{8}"
cp stress2.svg "$FG_ARTIFACTS/build-stress2.svg" 2>/dev/null || true

# --format json: speedscope, with where the code came from
check_exit "--format json" 0 fgb --bin stress2 --format json -o p.json -- --rounds 2
python3 - p.json <<'PY' && pass || fail "p.json lacks the git metadata"
import json, re, sys
d = json.load(open(sys.argv[1]))
g = d["metadata"]["git"]
assert g["branch"] in ("main", "master"), g
assert re.fullmatch(r"[0-9a-f]{40}", g["commit"]), g
assert g["dirty"] is False, g
assert d["profiles"][0]["type"] == "sampled"
PY

# a second run with nothing changed does not rebuild and says so
check_exit "re-run" 0 fgb --bin stress2 -o again.svg -- --rounds 3
check_contains "re-run says up to date" err "stress2 is up to date"
check_not_contains "re-run does not configure" err "configuring"
check_not_contains "re-run does not compile" out "Building C object"

# --manifest-path from another directory, found by the executable's name
mkdir -p elsewhere
check_exit "--manifest-path elsewhere" 0 sh -c "cd elsewhere && flamegraph-build --manifest-path ../proj/CMakeLists.txt --bin stress2 -- --rounds 2"
check_eq "graph written where we ran" "yes" "$([ -s elsewhere/flamegraph.svg ] && echo yes)"

# --example and --bench
check_exit "--example" 0 fgb --example wordfreq -o ex.svg --folded ex.folded
check_contains "example graph" ex.folded "main;count_words"
check_exit "--bench" 0 fgb --bench bench_hash -o bench.svg --folded bench.folded -- 400
check_contains "bench graph" bench.folded "hash_buffer_loop"

# --unit-test NAME -- FILTER: only the selected case's functions appear
check_exit "--unit-test hash" 0 fgb --unit-test unit_tests -o ut.svg --folded ut.folded -- hash
check_contains "unit-test ran one case" out "ok   hash"
check_contains "unit-test graph: case_hash" ut.folded "case_hash"
check_not_contains "unit-test graph: no case_sort" ut.folded "case_sort"
check_not_contains "unit-test graph: no case_table" ut.folded "case_table"

# --test by CTest name: its command, working directory and environment
check_exit "--test table_suite" 0 fgb --test table_suite -o t.svg --folded t.folded
check_contains "ctest said what it profiles" err "CTest test table_suite"
check_contains "ctest graph: case_table" t.folded "case_table"
check_not_contains "ctest graph: its filter applied" t.folded "case_hash"
check_eq "ctest outputs land where we ran" "yes" "$([ -s t.svg ] && echo yes)"
# --test by target name: the executable itself (all cases)
check_exit "--test unit_tests" 0 fgb --test unit_tests -o t2.svg --folded t2.folded -- sort
check_contains "test target graph: case_sort" t2.folded "case_sort"

# --features: a function compiled only with the option appears
# (about 3% of the samples are in the hash: 30 rounds give it ~15 samples,
# so the graph check does not depend on luck; the symbol check is exact)
check_exit "--features fast-hash" 0 fgb --features fast-hash --bin stress2 -o f.svg --folded f.folded -- --rounds 30
nm proj/build/flamegraph/release/stress2 > syms.txt
check_contains "feature compiled in: hash_fast_mix" syms.txt " hash_fast_mix$"
check_contains "feature graph: hash_fast_mix" f.folded "hash_fast_mix"
# --no-default-features: the default-on checksum disappears
check_exit "--no-default-features" 0 fgb --no-default-features --bin stress2 -o nd.svg --folded nd.folded -- --rounds 10
check_not_contains "no-default graph: no checksum_block" nd.folded "checksum_block"
check_not_contains "no-default graph: no fast hash either" nd.folded "hash_fast_mix"
# and back to the defaults without flags
check_exit "defaults again" 0 fgb --bin stress2 -o d.svg --folded d.folded -- --rounds 10
check_contains "defaults graph: checksum back" d.folded "checksum_block"

# --dev builds at -O0 (DWARF producer), in its own build directory
check_exit "--dev" 0 fgb --dev --bin stress2 -o dev.svg --folded dev.folded -- --rounds 3
check_eq "dev build dir" "yes" "$([ -x proj/build/flamegraph/dev/stress2 ] && echo yes)"
readelf --debug-dump=info proj/build/flamegraph/dev/stress2 2>/dev/null | grep DW_AT_producer > producer.txt || true
check_contains "dev: -O0 producer" producer.txt "-O0|-g .*-fno-omit-frame-pointer"
check_not_contains "dev: not -O2" producer.txt "-O2"
check_contains "dev: frame pointers" producer.txt "-fno-omit-frame-pointer"
check_contains "dev graph" dev.folded "fill_table"

# --profile NAME: CMake build type NAME in build/flamegraph/NAME
check_exit "--profile MinSizeRel" 0 fgb --profile MinSizeRel --bin stress2 -o ms.svg -- --rounds 3
check_contains "profile build type" proj/build/flamegraph/MinSizeRel/CMakeCache.txt "CMAKE_BUILD_TYPE:STRING=MinSizeRel"
readelf --debug-dump=info proj/build/flamegraph/MinSizeRel/stress2 2>/dev/null | grep DW_AT_producer > ms.txt || true
check_contains "MinSizeRel: -Os" ms.txt "-Os"

# the release build appends frame pointers to the user's CFLAGS
check_exit "CFLAGS kept" 0 env CFLAGS=-DSTRESS_MARK=1 flamegraph-build --manifest-path "$PWD/proj" --build-dir "$PWD/bd" --list
check_contains "CFLAGS appended" bd/CMakeCache.txt "CMAKE_C_FLAGS:.*=-DSTRESS_MARK=1 -g -fno-omit-frame-pointer"

# built by clang: it records its command line in the debug info, so the
# link check can see the frame-pointer flags (clang keeps none by default)
if command -v clang >/dev/null; then
	check_exit "CC=clang" 0 env CC=clang flamegraph-build --manifest-path "$PWD/proj" --build-dir "$PWD/clangbd" --bin stress2 -o clang.svg -- --rounds 3
	check_contains "clang: compiler in the cache" clangbd/CMakeCache.txt "CMAKE_C_COMPILER:.*clang"
	readelf --debug-dump=info clangbd/stress2 2>/dev/null | grep DW_AT_producer > clang-producer.txt || true
	check_contains "clang: flags recorded" clang-producer.txt "clang version.* -grecord-command-line"
	check_contains "clang: frame pointers" clang-producer.txt "clang version.* -fno-omit-frame-pointer"
	check_not_contains "clang: no frame-pointer warning" err "frame pointers"
	# the build remembers its compiler: a run without CC changes nothing
	check_exit "clang build, re-run without CC" 0 flamegraph-build --manifest-path "$PWD/proj" --build-dir "$PWD/clangbd" --bin stress2 -o clang2.svg -- --rounds 1
	check_contains "re-run without CC: up to date" err "stress2 is up to date"
	check_not_contains "re-run without CC: not configured again" err "configuring"
fi

# linked by lld: -Wl,--no-rosegment is added, and the program headers show
# the code segment at a page-aligned offset
if command -v ld.lld >/dev/null; then
	check_exit "lld link" 0 fgb --build-dir "$PWD/lld" -D CMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld --bin stress2 -o lld.svg --folded lld.folded -- --rounds 3
	check_contains "lld: says so" err "no-rosegment"
	check_contains "lld: flag in the cache" lld/CMakeCache.txt "CMAKE_EXE_LINKER_FLAGS:.*-fuse-ld=lld -Wl,--no-rosegment"
	readelf -p .comment lld/stress2 > comment.txt
	check_contains "lld: linked by LLD" comment.txt "Linker: .*LLD"
	readelf -lW lld/stress2 | awk '$1 == "LOAD"' > loads.txt
	# with --no-rosegment the first LOAD is R E (text and rodata together)
	check_contains "lld: first LOAD executable" <(head -1 loads.txt) "R E"
	check_contains "lld graph" lld.folded "fill_table"
	# the next run without -fuse-ld=lld links with the default linker again:
	# nothing of the lld run's flags stays in the build folder
	check_exit "after lld: plain run in the same folder" 0 fgb --build-dir "$PWD/lld" --bin stress2 --call-graph fp -o plain.svg -- --rounds 1
	check_not_contains "after lld: no --no-rosegment in the cache" lld/CMakeCache.txt "CMAKE_EXE_LINKER_FLAGS:.*(rosegment|lld)"
	readelf -p .comment lld/stress2 > comment2.txt
	check_not_contains "after lld: not linked by LLD" comment2.txt "Linker: .*LLD"
	check_exit "after lld: lld again" 0 fgb --build-dir "$PWD/lld" -D CMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld --bin stress2 --call-graph fp -o lld2.svg -- --rounds 1
	check_contains "lld again: flag in the cache" lld/CMakeCache.txt "CMAKE_EXE_LINKER_FLAGS:.*-fuse-ld=lld -Wl,--no-rosegment"
fi
