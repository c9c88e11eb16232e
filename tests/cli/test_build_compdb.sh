# flamegraph-build on broken compile_commands.json projects: each error
# names the problem and what to do, with the programs' exit codes. Real cc,
# no perf (only --list and builds that fail before recording).
ex="$FG_SRC/examples/make"
fresh() { rm -rf "$1"; cp -r "$ex" "$1"; rm -rf "$1/build"; }
# keeps the entries whose "file" matches the pattern (jq-free: python3)
keep_entries() {
	python3 - "$1" "$2" <<'PY'
import json, re, sys
path, pat = sys.argv[1], sys.argv[2]
d = [e for e in json.load(open(path)) if re.search(pat, e["file"])]
json.dump(d, open(path, "w"), indent=1)
PY
}

# a source named by the database is gone: every missing one is named
fresh gone
rm gone/src/hot.c gone/tests/test_common.c
check_exit "missing sources" 1 flamegraph-build --manifest-path gone/compile_commands.json --list
check_contains "missing: counted" err "names 2 source files that do not exist"
check_contains "missing: hot.c named" err "gone/src/hot.c"
check_contains "missing: test named" err "gone/tests/test_common.c"
check_contains "missing: what to do" err "regenerate the file \(bear -- make\)"

# no translation unit defines main
fresh nomain
keep_entries nomain/compile_commands.json '^src/(common|hot)'
check_exit "no main" 1 flamegraph-build --manifest-path nomain/compile_commands.json --list
check_contains "no main: said" err "no target found: no translation unit in .* defines main \(2 compiled\)"

# a symbol nothing defines: named, with where it is used
fresh undef
keep_entries undef/compile_commands.json '^src/(primes|hot)'
check_exit "undefined symbols" 2 flamegraph-build --manifest-path undef/compile_commands.json --bin primes -o u.svg
check_contains "undefined: which" err "cannot link primes: no object in compile_commands.json defines common_"
check_contains "undefined: common_mix and where" err "common_mix \(used in src/primes.c\)"
check_contains "undefined: common_arg too" err "common_arg \(used in src/primes.c\)"
check_contains "undefined: what to do" err "add the missing source"
if [ -e u.svg ]; then fail "undefined: a graph was written"; else pass; fi

# a compile error: the compiler's output, exit 2
fresh broken
printf 'int common_arg(void) { return undefined_thing; }\n' >> broken/src/common.c
check_exit "compile error" 2 flamegraph-build --manifest-path broken/compile_commands.json --list
check_contains "compile error: compiler output" err "undefined_thing"
check_contains "compile error: ours" err "compiling src/common.c failed .* fix the error and run again"

# malformed databases
mkdir -p bad1 bad2 bad3
printf '[ { "directory": ".", ' > bad1/compile_commands.json
check_exit "invalid JSON" 1 flamegraph-build --manifest-path bad1/compile_commands.json --list
check_contains "invalid JSON: said" err "bad1/compile_commands.json: not valid JSON — regenerate it"
printf '{ "directory": "." }\n' > bad2/compile_commands.json
check_exit "not an array" 1 flamegraph-build --manifest-path bad2/compile_commands.json --list
check_contains "not an array: said" err "not a JSON array of compile commands"
printf '[ { "directory": ".", "command": "cc -c x.c" } ]\n' > bad3/compile_commands.json
check_exit "entry without file" 1 flamegraph-build --manifest-path bad3/compile_commands.json --list
check_contains "entry without file: said" err "entry 1 has no \"file\""
printf '[]\n' > bad3/compile_commands.json
check_exit "empty database" 1 flamegraph-build --manifest-path bad3/compile_commands.json --list
check_contains "empty database: what to do" err "lists no compile commands — build the project under bear"
printf '[ { "directory": "/no/such/place/at/all", "file": "x.c", "command": "cc -c x.c" } ]\n' > bad3/compile_commands.json
check_exit "folder nowhere" 1 flamegraph-build --manifest-path bad3/compile_commands.json --list
check_contains "folder nowhere: said" err "entry 1: folder /no/such/place/at/all does not exist, and nothing matching it was found under .*/bad3"

# the same source compiled twice with other flags: two targets, and the
# entry's own dependency output (-MF into the user's tree) is dropped
fresh twice
python3 - twice/compile_commands.json <<'PY'
import json, sys
path = sys.argv[1]
d = json.load(open(path))
e = dict(next(x for x in d if x["file"] == "src/primes.c"))
e["arguments"] = ["cc", "-O3", "-DFAST", "-Isrc", "-MD", "-MF", "src/primes-fast.d",
                  "-c", "-o", "src/primes-fast.o", "src/primes.c"]
e["output"] = "src/primes-fast.o"
d.append(e)
json.dump(d, open(path, "w"), indent=1)
PY
check_exit "same source twice" 0 flamegraph-build --manifest-path twice/compile_commands.json --list
check_contains "twice: both targets" out "^bin +primes, geometry, fgsum, primes-fast$"
check_eq "twice: two objects" "yes" "$([ -f twice/build/flamegraph/release/obj/src/primes.c-2.o ] && echo yes)"
check_eq "twice: no .d in the user's tree" "no" "$([ -e twice/src/primes-fast.d ] && echo yes || echo no)"
check_exit "twice: unknown bin lists both" 1 flamegraph-build --manifest-path twice/compile_commands.json --bin nope
check_contains "twice: listed" err "primes, geometry, fgsum, primes-fast"
