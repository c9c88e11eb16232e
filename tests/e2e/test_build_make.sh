# flamegraph-build on the Make example through its compile_commands.json
# (named with --manifest-path: the folder alone is a plain Make project),
# with real make, cc and perf: each graph is checked, not just the exit code.
require_perf
cp -r "$FG_SRC/examples/make" proj
rm -rf proj/build
# the user's own build: its objects and programs must never be touched
make -s -C proj >/dev/null
snapshot() { find proj -path proj/build -prune -o -type f -printf '%p %T@ %s\n' | sort; }
snapshot > before.txt
fgb() { flamegraph-build --manifest-path "$PWD/proj/compile_commands.json" "$@"; }

# --list: programs by kind, named after the executable an entry links
check_exit "--list" 0 fgb --list
check_contains "--list bins" out "^bin +primes, geometry, fgsum$"
check_contains "--list test" out "^test +test_common$"
check_contains "first --list compiles" err "compiling src/primes.c"
check_exit "--list again" 0 fgb --list
check_not_contains "second --list compiles nothing" err "compiling"

# two programs sharing src/common.o: primes, with the hot loop the
# Makefile builds with -fomit-frame-pointer
check_exit "--bin primes" 0 fgb --bin primes -o primes.svg --folded primes.folded -- 6
check_contains "primes ran with its argument" out "primes: 6 rounds"
check_contains "primes graph: sieve" primes.folded "main;sieve_primes"
check_contains "primes graph: shared object" primes.folded "main;hash_primes;common_mix"
# the caller of the -fomit-frame-pointer function is only there when the
# frame pointer is kept, i.e. when our flag won
check_contains "primes graph: frame kept in hot loop" primes.folded "main;scramble;hot_inner_loop"
"$FG_SRC/tests/tools/svg-frames" primes.svg > frames.txt
check_contains "svg frames" frames.txt "sieve_primes"
cp primes.svg "$FG_ARTIFACTS/build-make-primes.svg" 2>/dev/null || true
obj=proj/build/flamegraph/release/obj/src/hot.c.o
tr '\0' ' ' < "$obj.cmd" > hotcmd.txt
check_contains "hot.c: our flag comes after the project's" hotcmd.txt "-fomit-frame-pointer .*-g -fno-omit-frame-pointer"
readelf --debug-dump=info "$obj" 2>/dev/null | grep DW_AT_producer > producer.txt || true
check_contains "hot.c: built with frame pointers" producer.txt "-fno-omit-frame-pointer"
check_contains "hot.c: built with the project's -O2" producer.txt "-O2"

# a second run with nothing changed does not rebuild and says so
check_exit "re-run" 0 fgb --bin primes -o again.svg -- 2
check_contains "re-run says up to date" err "primes is up to date"
check_not_contains "re-run compiles nothing" err "compiling|linking"
# a changed source is recompiled, and only the programs using it relink
sleep 1
echo '/* touched */' >> proj/src/common.c
check_exit "after an edit" 0 fgb --bin primes -o edit.svg -- 1
check_contains "edit: recompiles common.c" err "compiling src/common.c"
check_not_contains "edit: not primes.c" err "compiling src/primes.c"
check_contains "edit: relinks" err "linking .*primes"

# geometry uses sqrt: where it does not link without -lm, -lm is found in
# libm's symbol table and added (C libraries that define sqrt themselves
# need none: then none is added)
check_exit "--bin geometry" 0 fgb --bin geometry -o geo.svg --folded geo.folded -- 40
tr '\0' ' ' < proj/build/flamegraph/release/geometry.link > link.txt
if cc -O2 -o geometry-nolibm proj/src/geometry.c proj/src/common.c 2>/dev/null; then
	check_not_contains "geometry: links without -lm here, none said" err "only -lm defines"
	check_not_contains "geometry link command: no -lm needed" link.txt " -lm"
else
	check_contains "geometry: says -lm" err "geometry uses symbols only -lm defines"
	check_contains "geometry link command has -lm" link.txt "common.c.o -lm"
fi
check_not_contains "geometry does not link primes' objects" link.txt "hot.c.o|primes.c.o"
check_contains "geometry graph" geo.folded "main;path_length;common_mix"

# fgsum: compiled and linked in one step, named after its -o
check_exit "--bin fgsum" 0 fgb --bin fgsum -o sum.svg --folded sum.folded -- 10
check_contains "fgsum graph" sum.folded "main;fletcher_block"
check_eq "fgsum built under its own name" "yes" "$([ -x proj/build/flamegraph/release/fgsum ] && echo yes)"

# a test program, by kind
check_exit "--test test_common" 0 fgb --test test_common -o t.svg --folded t.folded
check_contains "test ran" out "test_common: ok"
check_contains "test graph" t.folded "main;common_mix"

# nothing of the user's was touched by any of it
snapshot | grep -v 'proj/src/common.c ' > after.txt
grep -v 'proj/src/common.c ' before.txt > before2.txt
check_same_file "user's files untouched" before2.txt after.txt

# a database checked in on another machine: its folder does not exist
# here, so it is resolved relative to the file's own folder
cp -r "$FG_SRC/examples/make" moved
rm -rf moved/build
sed -e 's|"directory": "\."|"directory": "/home/alice/src/make"|' \
    -e 's|"file": "|"file": "/home/alice/src/make/|' moved/compile_commands.json > cc.json
mv cc.json moved/compile_commands.json
check_contains "relocation input has absolute paths" moved/compile_commands.json '"/home/alice/src/make/src/primes.c"'
check_exit "relocated --bin primes" 0 flamegraph-build --manifest-path moved/compile_commands.json --bin primes -o moved.svg --folded moved.folded -- 6
check_contains "relocation is said" err "/home/alice/src/make, which does not exist here: using .*/moved"
check_contains "relocated graph" moved.folded "main;sieve_primes"

# build/compile_commands.json is found from the project folder
cp -r "$FG_SRC/examples/make" inbuild
rm -rf inbuild/build && mkdir inbuild/build
sed "s|\"directory\": \"\\.\"|\"directory\": \"$PWD/inbuild\"|" "$FG_SRC/examples/make/compile_commands.json" > inbuild/build/compile_commands.json
rm inbuild/compile_commands.json inbuild/Makefile
check_exit "build/compile_commands.json" 0 sh -c "cd inbuild/src && flamegraph-build --bin geometry -o ../../inb.svg --folded ../../inb.folded -- 20"
check_contains "build/ database graph" inb.folded "main;path_length"
