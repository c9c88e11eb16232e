# flamegraph-build's errors: each names the problem and what to do, with
# the programs' exit codes. Uses real cmake and cc, no perf.
ex="$FG_SRC/examples/cmake"
cp -r "$ex" proj
rm -rf proj/build

# no manifest anywhere above an empty folder
mkdir -p empty/deeper
check_exit "no manifest" 1 sh -c 'cd empty/deeper && flamegraph-build --bin x'
check_contains "no manifest: says where it looked" err "looked in:"
check_contains "no manifest: lists the folder" err "empty/deeper"
check_contains "no manifest: what to do" err "manifest-path"

# unknown target: lists the targets by kind
check_exit "unknown bin" 1 flamegraph-build --manifest-path proj --bin nope
check_contains "unknown bin: named" err "no bin target named 'nope'"
check_contains "unknown bin: lists bins" err "^bin +stress2"
check_contains "unknown bin: lists tests" err "^test +.*table_suite \(ctest\)"
check_contains "unknown bin: lists benches" err "^bench +bench_hash"

# --list prints the same inventory on stdout
check_exit "two targets" 1 flamegraph-build --manifest-path proj --bin stress2 --example stress2
check_contains "two targets: says to choose" err "error: --bin and --example name two targets — give one of them"
check_exit "--list" 0 flamegraph-build --manifest-path proj --list
check_contains "--list bins" out "^bin +stress2$"
check_contains "--list example" out "^example +wordfreq$"
check_contains "--list tests" out "unit_tests"

# several candidates: no selector and more than one test executable? Use a
# project with two bins.
mkdir -p two && cat > two/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.13)
project(two C)
add_executable(one one.c)
add_executable(other one.c)
CM
echo 'int main(void){return 0;}' > two/one.c
check_exit "several bins" 1 flamegraph-build --manifest-path two
check_contains "several bins: lists them" err "several bin targets \(bin one, bin other\)"
check_contains "several bins: what to do" err "--bin NAME"

# unknown feature: lists the BOOL options
check_exit "unknown feature" 1 flamegraph-build --manifest-path proj --features turbo --bin stress2
check_contains "unknown feature: named" err "unknown feature 'turbo'"
check_contains "unknown feature: lists options" err "ENABLE_FAST_HASH"
check_contains "unknown feature: lists options" err "ENABLE_CHECKSUM"
check_not_contains "unknown feature: nothing near 'turbo'" err "did you mean"
# a near spelling of a feature, as --features spells it
check_exit "misspelt feature" 1 flamegraph-build --manifest-path proj --features fast-hsh --bin stress2
check_contains "misspelt feature: did you mean" err "unknown feature 'fast-hsh' — did you mean 'fast-hash' \(ENABLE_FAST_HASH\)\? "
check_exit "misspelt option name" 1 flamegraph-build --manifest-path proj --features ENABLE_FAST_HSH --bin stress2
check_contains "misspelt option name: did you mean" err "did you mean 'ENABLE_FAST_HASH'\? "

# CMake configure failure: CMake's own message, then ours
mkdir -p broken && printf 'cmake_minimum_required(VERSION 3.13)\nproject(b C)\nno_such_command(x)\n' > broken/CMakeLists.txt
check_exit "configure failure" 2 flamegraph-build --manifest-path broken --bin b
check_contains "configure failure: CMake's words" err "Unknown CMake command \"no_such_command\""
check_contains "configure failure: ours" err "configuring .* with cmake failed"

# compile error: compiler output, exit 2, nothing recorded
printf 'int main(void) { return undefined_thing; }\n' > two/one.c
check_exit "compile error" 2 flamegraph-build --manifest-path two --bin one -o graph.svg
check_contains "compile error: compiler output" err "undefined_thing"
check_contains "compile error: ours" err "building one failed"
if [ -e graph.svg ]; then fail "compile error: a graph was written"; else pass; fi

# the user's own build tree is never touched
check_eq "flamegraph build dir" "yes" "$([ -d proj/build/flamegraph/release ] && echo yes)"
check_eq "only build/flamegraph is created" "flamegraph" "$(ls proj/build)"

# --completions comes from the option table
check_exit "completions" 0 flamegraph-build --completions bash
check_contains "completions list --unit-test" out "unit-test"
