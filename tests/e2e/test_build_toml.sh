# flamegraph-build on the flamegraph.toml example: the built-in cc system
# compiles it, the default recorder profiles it, and each graph is checked.
require_perf
cp -r "$FG_SRC/examples/toml" proj
rm -rf proj/build
fgb() { flamegraph-build --manifest-path "$PWD/proj" "$@"; }
rel=proj/build/flamegraph/release

# --list
check_exit "--list" 0 fgb --list
check_contains "list: bins" out "^bin +crunch, textstat$"
check_contains "list: test" out "^test +unit$"
check_contains "list: bench" out "^bench +bench_mix$"
check_contains "list: example" out "^example +primes$"

# --bin with arguments after --: they replace the manifest's args (--rounds
# 20 --size 300), so the size is the program's own default
check_exit "--bin crunch" 0 fgb --bin crunch -o crunch.svg --folded crunch.folded -- --rounds 8
check_contains "crunch ran with the given args only" out "crunch 0.1.0: 8 rounds of 220x220"
check_contains "compiled each source" err "compiling src/crunch.c"
check_contains "compiled each source" err "compiling src/work.c"
check_contains "crunch graph: multiply" crunch.folded "main;multiply;dot_plain"
check_contains "crunch graph: default feature's checksum_rows" crunch.folded "main;checksum_rows"
check_not_contains "crunch graph: no dot_unrolled without the feature" crunch.folded "dot_unrolled"
"$FG_SRC/tests/tools/svg-frames" crunch.svg > frames.txt
check_contains "svg frames" frames.txt "multiply"
check_eq "objects in build/flamegraph/release/obj" "yes" "$([ -f $rel/obj/src/work.c.o ] && [ -f $rel/obj/src/work.c.o.d ] && echo yes)"
readelf --debug-dump=info $rel/bin/crunch 2>/dev/null | grep DW_AT_producer > producer.txt || true
check_contains "release: -O2 and frame pointers" producer.txt "-O2.*-fno-omit-frame-pointer"

# a second run with nothing changed does not rebuild and says so
before=$(stat -c %Y.%y $rel/bin/crunch $rel/obj/src/*.o)
check_exit "re-run" 0 fgb --bin crunch -o again.svg -- --rounds 2
check_contains "re-run says up to date" err "crunch is up to date"
check_not_contains "re-run compiles nothing" err "compiling|linking"
check_eq "re-run left objects and exe alone" "$before" "$(stat -c %Y.%y $rel/bin/crunch $rel/obj/src/*.o)"
# -r is the release profile: the same build, up to date
check_exit "-r" 0 fgb -r --call-graph fp --bin crunch -o r.svg -- --rounds 1
check_contains "-r: the release build, up to date" err "crunch is up to date"
check_not_contains "-r: no other profile built" err "compiling|linking"

# touching one source recompiles only that one, then relinks
work_o=$(stat -c %y $rel/obj/src/work.c.o)
sleep 0.01
touch proj/src/crunch.c
check_exit "after touch" 0 fgb --bin crunch -o t.svg -- --rounds 2
check_contains "touched source recompiled" err "compiling src/crunch.c"
check_not_contains "untouched source not recompiled" err "compiling src/work.c"
check_contains "relinked" err "linking .*bin/crunch"
check_eq "work.o untouched" "$work_o" "$(stat -c %y $rel/obj/src/work.c.o)"
# a header change reaches every source including it (-MMD dependencies)
touch proj/src/work.h
check_exit "after header touch" 0 fgb --bin crunch -o h.svg -- --rounds 2
check_contains "header: crunch.c recompiled" err "compiling src/crunch.c"
check_contains "header: work.c recompiled" err "compiling src/work.c"

# second bin shares work.c's object
check_exit "--bin textstat" 0 fgb --bin textstat -o ts.svg --folded ts.folded
check_contains "textstat graph" ts.folded "main;hash_text"
check_contains "textstat graph: sort" ts.folded "sort_ints"
check_not_contains "textstat shares work.c's object" err "compiling src/work.c"

# --test: every case; --unit-test NAME -- FILTER: only the selected case
check_exit "--test unit" 0 fgb --test unit -o test.svg --folded test.folded
check_contains "test graph: case_hash" test.folded "case_hash"
check_contains "test graph: case_sort" test.folded "case_sort"
check_exit "--unit-test unit -- sort" 0 fgb --unit-test unit -o ut.svg --folded ut.folded -- sort
check_contains "unit-test ran the one case" out "ok   sort"
check_not_contains "unit-test ran no other case" out "parse|hash|matrix"
check_contains "unit-test graph: case_sort" ut.folded "case_sort"
check_not_contains "unit-test graph: no other case" ut.folded "case_hash|case_parse|case_matrix"

# --bench and --example
check_exit "--bench" 0 fgb --bench bench_mix -o b.svg --folded b.folded -- 200
check_contains "bench graph" b.folded "main;mix_round;hash_text"
check_exit "--example" 0 fgb --example primes -o ex.svg --folded ex.folded
check_contains "example graph: sieve" ex.folded "main;sieve"
check_contains "example graph: trial division" ex.folded "is_prime_slow"

# --features: the optional feature's function appears
check_exit "--features unrolled" 0 fgb --features unrolled --bin crunch -o f.svg --folded f.folded
check_contains "feature graph: dot_unrolled" f.folded "multiply;dot_unrolled"
check_not_contains "feature graph: no dot_plain" f.folded "dot_plain"
check_contains "feature change recompiled" err "compiling src/work.c"
# --no-default-features: the default feature's function disappears
check_exit "--no-default-features" 0 fgb --no-default-features --bin crunch -o nd.svg --folded nd.folded
check_not_contains "no-default graph: no checksum_rows" nd.folded "checksum_rows"
check_contains "no-default graph: still multiplies" nd.folded "multiply"
# --all-features: both
check_exit "--all-features" 0 fgb --all-features --bin crunch -o all.svg --folded all.folded
check_contains "all-features: dot_unrolled" all.folded "dot_unrolled"
check_contains "all-features: checksum_rows" all.folded "checksum_rows"

# required-features: listed with what it needs, refused without it (the
# message says what to add), built and run with it
cat >> proj/flamegraph.toml <<'TOML'
[[bin]]
name = "crunch_unrolled"
sources = ["src/crunch.c", "src/work.c"]
required-features = ["unrolled"]
TOML
check_exit "--list with required-features" 0 fgb --list
check_contains "list says what it needs" out "^bin +crunch, textstat, crunch_unrolled \(needs --features unrolled\)$"
check_exit "required feature off" 1 fgb --bin crunch_unrolled -o ru.svg
check_contains "required feature: says what to add" err "bin 'crunch_unrolled' requires the features unrolled, which are not enabled — add --features unrolled"
check_eq "required feature: nothing written" "no" "$([ -e ru.svg ] && echo yes || echo no)"
check_exit "required feature on" 0 fgb --features unrolled --bin crunch_unrolled -o ru.svg --folded ru.folded -- --rounds 4
check_contains "required feature graph" ru.folded "multiply;dot_unrolled"

# --dev: -O0 in its own build directory (release's objects stay as they are)
rel_objs=$(stat -c %y $rel/obj/src/*.o)
check_exit "--dev" 0 fgb --dev --bin crunch -o dev.svg --folded dev.folded -- --rounds 3
check_eq "dev exe" "yes" "$([ -x proj/build/flamegraph/dev/bin/crunch ] && echo yes)"
readelf --debug-dump=info proj/build/flamegraph/dev/bin/crunch 2>/dev/null | grep DW_AT_producer > dev-producer.txt || true
check_contains "dev: -O0 producer" dev-producer.txt "-O0"
check_not_contains "dev: not -O2" dev-producer.txt "-O2"
check_contains "dev graph" dev.folded "multiply"

# --profile profiling: inherits release, opt-level 1, -fno-inline
check_exit "--profile profiling" 0 fgb --profile profiling --bin crunch -o pr.svg --folded pr.folded -- --rounds 6
readelf --debug-dump=info proj/build/flamegraph/profiling/bin/crunch 2>/dev/null | grep DW_AT_producer > pr-producer.txt || true
check_contains "custom profile: -O1 and -fno-inline" pr-producer.txt "-O1 .*-fno-inline"
# opt-level wins over the -O2 in the cflags of the release profile it inherits
check_eq "custom profile: -O1 is the last -O" "-O1" "$(grep -o -- '-O[0-3sgz]' pr-producer.txt | tail -1)"
check_contains "custom profile graph" pr.folded "multiply"

check_eq "release objects untouched by dev/profile builds" "$rel_objs" "$(stat -c %y $rel/obj/src/*.o)"

# CC=clang: the compiler records its command line, frame-pointer flags
# included, for the link check
if command -v clang >/dev/null; then
	check_exit "CC=clang" 0 env CC=clang flamegraph-build --manifest-path "$PWD/proj" --build-dir "$PWD/clangbd" --bin crunch -o clang.svg -- --rounds 2
	readelf --debug-dump=info clangbd/bin/crunch 2>/dev/null | grep DW_AT_producer > clang-producer.txt || true
	check_contains "clang: flags recorded with frame pointers" clang-producer.txt "clang version.* -fno-omit-frame-pointer .*-grecord-command-line"
	check_not_contains "clang: no frame-pointer warning" err "frame pointers"
fi

# a compile error shows the compiler output and exits 2
printf 'int broken(void) { return undeclared_thing; }\n' >> proj/src/work.c
check_exit "compile error" 2 fgb --bin crunch -o broken.svg
check_contains "compiler output shown" err "undeclared_thing"
check_contains "says what to do" err "error: compiling src/work.c failed.*fix the error"
check_eq "nothing recorded" "no" "$([ -e broken.svg ] && echo yes || echo no)"

# --unit-test without NAME: the project's only test executable is chosen,
# and the arguments after -- are its filter (a fresh copy: proj's work.c is
# broken above)
cp -r "$FG_SRC/examples/toml" proj-unit
rm -rf proj-unit/build
check_exit "--unit-test without NAME" 0 flamegraph-build --manifest-path "$PWD/proj-unit" --unit-test -o u.svg --folded u.folded -- sort
check_contains "unit-test without NAME ran the one case" out "ok   sort"
check_not_contains "unit-test without NAME ran no other case" out "parse|hash|matrix"
check_contains "unit-test without NAME graph: case_sort" u.folded "case_sort"
check_not_contains "unit-test without NAME graph: no case_hash" u.folded "case_hash"
"$FG_SRC/tests/tools/svg-frames" u.svg > u.frames
check_contains "unit-test without NAME svg: case_sort" u.frames "^case_sort	"

# linked by lld (ldflags in [build]): -Wl,--no-rosegment is added and said,
# the first LOAD segment holds the code (R E); a re-run keeps the flag and
# does not relink
if command -v ld.lld >/dev/null; then
	cp -r "$FG_SRC/examples/toml" proj-lld
	rm -rf proj-lld/build
	sed -i 's/^libs = \["m"\]$/&\nldflags = ["-fuse-ld=lld"]/' proj-lld/flamegraph.toml
	check_contains "lld: ldflags in the manifest copy" proj-lld/flamegraph.toml '^ldflags = \["-fuse-ld=lld"\]$'
	lldfg() { flamegraph-build --manifest-path "$PWD/proj-lld" --build-dir "$PWD/lldbd" "$@"; }
	check_exit "lld link" 0 lldfg --bin crunch -o lld.svg --folded lld.folded -- --rounds 3
	check_contains "lld: says so" err "crunch is linked by LLD: adding -Wl,--no-rosegment"
	check_eq "lld: exe in the build dir" "yes" "$([ -x lldbd/bin/crunch ] && echo yes)"
	readelf -p .comment lldbd/bin/crunch > lld-comment.txt 2>/dev/null || true
	check_contains "lld: linked by LLD" lld-comment.txt "Linker: .*LLD"
	readelf -lW lldbd/bin/crunch | awk '$1 == "LOAD"' > lld-loads.txt
	# with --no-rosegment the first LOAD is R E (text and rodata together)
	check_contains "lld: first LOAD executable" <(head -1 lld-loads.txt) "R E"
	check_contains "lld graph" lld.folded "main;multiply;dot_plain"
	check_exit "lld re-run" 0 lldfg --bin crunch -o lld2.svg -- --rounds 1
	check_contains "lld re-run: up to date" err "crunch is up to date"
	check_not_contains "lld re-run: no relink" err "linking|adding -Wl,--no-rosegment"
	# ldflags taken out of the manifest: the default linker links, without
	# the flag the lld run needed (GNU ld rejects it)
	sed -i '/^ldflags = \["-fuse-ld=lld"\]$/d' proj-lld/flamegraph.toml
	check_exit "lld dropped: re-run" 0 lldfg --bin crunch --call-graph fp -o lld3.svg -- --rounds 1
	readelf -p .comment lldbd/bin/crunch > lld-comment2.txt 2>/dev/null || true
	check_not_contains "lld dropped: not linked by LLD" lld-comment2.txt "Linker: .*LLD"
fi

finish
