# flamegraph-build on examples/meson, a Meson project: targets by Meson's
# names (the program wordstat, built from wordstat-main.c), a test with
# arguments, environment and working folder, a benchmark, boolean and
# feature options, the user's own build folder (its options carried over,
# never written), and the errors (meson missing, configure failure,
# unknown names).
command -v meson >/dev/null || { echo "meson not installed (apt-get install meson ninja-build)"; exit 77; }
require_perf
cp -r "$FG_SRC/examples/meson" ws
rm -rf ws/build
fb() { flamegraph-build --manifest-path ws "$@"; }

check_exit "--list" 0 fb --list
check_contains "--list: the program by its Meson name" out "^bin +wordstat$"
check_contains "--list: the test and its program" out "^test +test_counts, count_suite \(meson test\), smoke \(meson test\)$"
check_contains "--list: the benchmark and its program" out "^bench +wordstat-benchmark, hash_speed \(meson benchmark\)$"
check_not_contains "--list: no source stems" out "wordstat-main"
check_contains "--list: configured our own build folder" err "configuring .* with meson in .*/ws/build/flamegraph/release"
check_exit "--list-names feature" 0 fb --list-names feature
check_eq "--list-names feature: boolean and feature options" "checksum fast_hash" "$(tr '\n' ' ' < out | sed 's/ $//')"
check_exit "--list-names bench" 0 fb --list-names bench
check_contains "--list-names bench: Meson's name" out "^hash_speed$"

check_exit "--bin wordstat" 0 fb --bin wordstat --call-graph fp -F 499 -o bin.svg --folded bin.folded -- 20
check_contains "--bin wordstat: the project's functions, rooted in main" bin.folded "^wordstat;.*main;.*(ws_count_text|ws_hash|add_word)"
readelf --debug-dump=info ws/build/flamegraph/release/wordstat 2>/dev/null | grep -m3 DW_AT_producer > producer || true
check_contains "built with frame pointers" producer "-fno-omit-frame-pointer"
check_contains "built with -O2 -g (debugoptimized)" producer "-O2 .*-g|-g .*-O2"
check_exit "--bin wordstat again" 0 fb --bin wordstat --call-graph fp -F 499 -o bin2.svg -- 5
check_contains "second run: up to date" err "wordstat is up to date"
check_not_contains "second run: no configure" err "configuring"
check_contains "second run: ninja had nothing to do" err "no work to do"

# the test runs its exact command in its folder with its environment:
# test_counts fails without --rounds, WORDSTAT_SCALE or tests/corpus.txt
check_exit "--test count_suite" 0 fb --test count_suite --call-graph fp -F 499 -o test.svg --folded test.folded
check_contains "--test: says what it profiles" err "profiling Meson test count_suite: .*/test_counts --rounds 40 \(in .*/ws/tests;"
check_contains "--test: the test passed (arguments, environment, folder)" out "test_counts: 40 rounds x 3: ok"
check_contains "--test: its functions, rooted in main" test.folded "^test_counts;.*main;.*(ws_count_text|ws_hash|add_word)"
check_eq "--test: outputs where we ran" "yes" "$([ -s test.svg ] && [ ! -e ws/tests/test.svg ] && echo yes)"
check_exit "--test count_suite -- --rounds 2 (appended)" 0 fb --test count_suite --call-graph fp -F 499 -o t2.svg -- --rounds 2
check_contains "--test: trailing arguments appended" out "test_counts: 2 rounds x 3: ok"
check_exit "--bench hash_speed" 0 fb --bench hash_speed -F 499 -o bench.svg --folded bench.folded
check_contains "--bench: says what it profiles" err "profiling Meson benchmark hash_speed: .*/wordstat-benchmark --words 200000"
check_contains "--bench: its environment honoured" out "^hash: [0-9.]+ MB/s"
check_contains "--bench: its functions, rooted in main" bench.folded "^wordstat-benchm[a-z]*;.*main;ws_hash [0-9]+$"
check_exit "--bin wordstat-benchmark (a bench's program)" 1 fb --bin wordstat-benchmark
check_contains "--bin of a bench's program: names the flag" err "'wordstat-benchmark' is a bench, not a bin: use --bench wordstat-benchmark"
check_exit "--unit-test test_counts (the program alone): it fails" 5 fb --unit-test test_counts -o u.svg
check_contains "--unit-test: run directly, without the test's arguments" err "needs --rounds N and WORDSTAT_SCALE"

# features: a boolean option and a feature option; dropping them restores
# the defaults
ninja_file=ws/build/flamegraph/release/build.ninja
check_exit "--features fast-hash" 0 fb --features fast-hash --list
check_contains "--features fast-hash: configured again" err "configuring wordstat"
check_contains "--features fast-hash: -Dfast_hash=true" "$ninja_file" "WS_FAST_HASH"
check_exit "--no-default-features" 0 fb --no-default-features --list
check_not_contains "--no-default-features: checksum disabled" "$ninja_file" "WS_CHECKSUM"
check_not_contains "--no-default-features: fast_hash off" "$ninja_file" "WS_FAST_HASH"
check_exit "no --features" 0 fb --list
check_contains "defaults back: checksum enabled" "$ninja_file" "WS_CHECKSUM"
check_not_contains "defaults back: fast_hash off" "$ninja_file" "WS_FAST_HASH"
check_exit "-D fast_hash=true" 0 fb -D fast_hash=true --list
check_contains "-D passes through" "$ninja_file" "WS_FAST_HASH"
check_exit "--features fasthash (a typo)" 1 fb --features fasthash --list
check_contains "unknown feature: did you mean" err "unknown feature 'fasthash' — did you mean 'fast_hash'\? wordstat's boolean and feature options are: checksum, fast_hash"
check_exit "--dev" 0 fb --dev --bin wordstat --call-graph fp -o dev.svg -- 2
check_contains "--dev: its own folder" err "configuring wordstat \(dev\) with meson in .*/build/flamegraph/dev"
# (meson writes the file on one line or indented, by version: read as JSON)
check_eq "--dev: -O0" 0 "$(python3 -c 'import json, sys
print(next(o["value"] for o in json.load(open(sys.argv[1])) if o["name"] == "optimization"))' \
	ws/build/flamegraph/dev/meson-info/intro-buildoptions.json)"
check_exit "--profile fast (no such build type)" 1 fb --profile fast --list
check_contains "--profile: what to use" err "no profile 'fast' for a Meson project — .*debugoptimized"

# unknown names and failures
check_exit "--bin wordstt" 1 fb --bin wordstt
check_contains "--bin typo: did you mean" err "did you mean 'wordstat'"
check_exit "--test count_suit" 1 fb --test count_suit
check_contains "--test typo: did you mean" err "did you mean 'count_suite'"
check_exit "-D nosuch=1: configure fails" 2 flamegraph-build --manifest-path ws --build-dir "$PWD/bad" -D nosuch=1 --list
check_contains "configure failure: meson's message" err "configuring .*meson.build with meson failed:"
check_contains "configure failure: meson's own words" err "ERROR: Unknown options: \"nosuch\""
check_exit "meson not installed" 1 env PATH=/nonexistent "$FG_BIN/flamegraph-build" --manifest-path ws --list
check_contains "meson not installed: what to install" err "meson is not installed — .*apt-get install meson ninja-build"

# discovery: from a subfolder (its meson.build calls no project()), and a
# build folder of the user's: its options are carried over, it is never
# written, and it is a manifest path of its own
check_exit "from ws/tests" 0 bash -c "cd ws/tests && flamegraph-build --list"
check_contains "from a subfolder: the top project" out "^bin +wordstat$"
cp -r "$FG_SRC/examples/meson" user
rm -rf user/build
(cd user && meson setup mine -Dfast_hash=true >/dev/null 2>&1)
find user/mine -type f -printf '%p %T@ %s\n' | sort > mine.before
check_exit "a user build folder beside: found" 0 flamegraph-build --manifest-path user --list
check_contains "user build folder: says whose options" err "taking the options of the build folder .*/user/mine"
check_contains "user build folder: its -Dfast_hash=true carried over" user/build/flamegraph/release/build.ninja "WS_FAST_HASH"
check_exit "--manifest-path a build folder" 0 bash -c "cd user/mine && flamegraph-build --bin wordstat --call-graph fp -o ../../mine.svg -- 2"
check_contains "from the build folder: builds in the source tree's flamegraph folder" err "ninja -C .*/user/build/flamegraph/release wordstat"
find user/mine -type f -printf '%p %T@ %s\n' | sort > mine.after
check_same_file "the user's build folder is untouched" mine.before mine.after

cp bin.svg "$FG_ARTIFACTS/meson-wordstat.svg" 2>/dev/null || true
