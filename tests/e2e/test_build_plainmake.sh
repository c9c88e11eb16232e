# flamegraph-build on plain Make projects, without bear: the build learnt
# from make's dry run, each unit compiled into our folder with the
# project's flags and ours last, programs linked as their link lines say;
# recipes that go through libtool.
# examples/make without its compile_commands.json and a Makefile whose dry
# run shows no compiler (Debian's bzip2: test_thirdparty_plainmake.sh).
require_perf
snapshot() { find "$1" -mindepth 1 -path "$1/build" -prune -o -printf '%p %T@ %s %m\n' | LC_ALL=C sort; }
cp -r "$FG_SRC/examples/make" mk
rm -rf mk/build mk/compile_commands.json
snapshot mk > before.txt
fb() { flamegraph-build --manifest-path mk "$@"; }

check_exit "--list" 0 fb --list
check_contains "--list: the programs the link lines write" out "^bin +primes, geometry, fgsum$"
check_contains "--list: a test by its name" out "^test +test_common$"
check_not_contains "--list: nothing compiled yet" err "compiling"
check_exit "--bin primes" 0 fb --bin primes -F 499 -o primes.svg --folded primes.folded -- 4
check_contains "primes ran" out "primes: 4 rounds"
check_contains "primes: the shared object's function" primes.folded "main;hash_primes;common_mix"
check_contains "primes: our frame pointers beat the Makefile's -fomit-frame-pointer" primes.folded "main;scramble;hot_inner_loop"
tr '\0' ' ' < mk/build/flamegraph/release/obj/src/hot.c.o.cmd > hot.txt
check_contains "hot.c: the project's flags, ours last" hot.txt "-O2 -Wall -fomit-frame-pointer -I.*/mk/src .*-g -fno-omit-frame-pointer"
check_exit "--bin geometry" 0 fb --bin geometry -F 499 -o geo.svg --folded geo.folded -- 20
tr '\0' ' ' < mk/build/flamegraph/release/geometry.link > geo-link.txt
check_contains "geometry: -lm from its link line" geo-link.txt "geometry.c.o .*common.c.o -lm"
check_contains "geometry: graph" geo.folded "main;path_length"
check_exit "--bin fgsum (compiled and linked in one command)" 0 fb --bin fgsum -F 499 -o sum.svg
check_contains "fgsum ran" out "fgsum: "
check_exit "--test test_common" 0 fb --test test_common -F 499 -o t.svg
check_exit "--bench primes (kinds are guesses: any flag takes a program)" 0 fb --bench primes -F 499 -o b.svg -- 1
check_exit "--bin primes again" 0 fb --bin primes -F 499 -o again.svg -- 1
check_contains "again: up to date" err "primes is up to date"
check_not_contains "again: nothing compiled or linked" err "compiling|linking"
# -D NAME=VALUE: a variable on make's command line, in every dry run
check_exit "-D FAST=1: --bin primes" 0 fb --verbose -D FAST=1 --bin primes -F 499 -o fast.svg -- 1
check_contains "-D FAST=1: the Makefile's conditional saw it" err "running cc -O2 -Wall -DFG_FAST -I[^ ]*/mk/src [^ ]*/src/primes.c -c"
check_contains "-D FAST=1: the changed commands recompile" err "compiling src/primes.c"
check_exit "-D CFLAGS=-O1: --bin primes" 0 fb -D CFLAGS=-O1 --bin primes -F 499 -o o1.svg -- 1
tr '\0' ' ' < mk/build/flamegraph/release/obj/src/primes.c.o.cmd > primes-o1.txt
check_contains "-D CFLAGS=-O1: replaces the Makefile's CFLAGS" primes-o1.txt "^cc -O1 -I[^ ]*/mk/src [^ ]*/src/primes.c -c "
check_not_contains "-D CFLAGS=-O1: nothing of the Makefile's CFLAGS" primes-o1.txt "-O2|-Wall"
check_exit "-D FAST (no =)" 1 fb -D FAST --bin primes
check_contains "-D without =: says what to write" err "error: -D FAST: a Make variable is set as -D NAME=VALUE .*-D FAST=1 sets it to 1"
check_exit "--bin primes without -D" 0 fb --bin primes -F 499 -o plain.svg -- 1
check_contains "without -D: recompiled with the Makefile's flags" err "compiling src/primes.c"
check_exit "--bin prims (a typo)" 1 fb --bin prims
check_contains "typo: did you mean" err "did you mean 'primes'"
snapshot mk > after.txt
check_same_file "examples/make: the user's tree is unchanged" before.txt after.txt

# make remakes included makefiles for real even in a dry run: a rule that
# writes the .depend it includes must not write into the user's tree
mkdir dep
printf 'int main(void) { return 0; }\n' > dep/tiny.c
printf 'DEPS = .depend\nall: tiny\ntiny: tiny.o\n\t$(CC) -o tiny tiny.o\n-include $(DEPS) \\\n  gen.mk\n.depend: tiny.c\n\t$(CC) -MM tiny.c > .depend\ngen.mk:\n\techo X=1 > gen.mk\n' > dep/Makefile
snapshot dep > dep-before.txt
check_exit "an included .depend with a rule: --list" 0 flamegraph-build --manifest-path dep --list
check_contains "included .depend: the program" out "^bin +tiny$"
snapshot dep > dep-after.txt
check_same_file "included .depend: not written into the tree" dep-before.txt dep-after.txt

# a variable given with -D reaches a header a command of the dry run
# writes: made again when the variable changes, and what includes it
# compiled again
mkdir lvl
printf '#include <stdio.h>\n#include "level.h"\nint main(void) { volatile unsigned s = 0; for (unsigned i = 0; i < 30000000u; i++) s += i; printf("level %%d\\n", LEVEL); return (int)(s & 0); }\n' > lvl/lvl.c
printf 'LEVEL = 1\nall: lvl\nlevel.h:\n\techo "#define LEVEL $(LEVEL)" > level.h\nlvl: lvl.c level.h\n\t$(CC) -O1 -o $@ lvl.c\n' > lvl/Makefile
check_exit "-D LEVEL=5: a generated header" 0 flamegraph-build --manifest-path lvl -D LEVEL=5 --bin lvl -F 499 -o lvl.svg
check_contains "-D LEVEL=5: the header has it" out "^level 5$"
check_exit "-D LEVEL=7: the header made again" 0 flamegraph-build --manifest-path lvl -D LEVEL=7 --bin lvl -F 499 -o lvl.svg
check_contains "-D LEVEL=7: generated again" err "generating level.h"
check_contains "-D LEVEL=7: the program has it" out "^level 7$"
check_exit "-D LEVEL=7 again: up to date" 0 flamegraph-build --manifest-path lvl -D LEVEL=7 --bin lvl -F 499 -o lvl.svg
check_not_contains "-D LEVEL=7 again: nothing generated or compiled" err "generating|compiling"
check_eq "-D: the user's tree has no header" "no" "$([ -e lvl/level.h ] && echo yes || echo no)"

# every compile and link through libtool, as some distributions' patches
# have it (the dry run prints these commands and never runs libtool): its
# options in each form, its modes that build nothing, and libtool's -static
# (libtool libraries linked statically), which is not the driver's
mkdir lt
printf 'int lt_mix(int x) { volatile int s = x; for (int i = 0; i < 100000000; i++) s = s * 31 + i; return s; }\n' > lt/mix.c
printf '#include <stdio.h>\nint lt_mix(int x);\nint main(void) { lt_mix(1); printf("ltprog: 1\\n"); return 0; }\n' > lt/main.c
cat > lt/Makefile <<'EOF'
LIBTOOL = $(SHELL) ./libtool
CC = cc
all: ltprog
libmix.la: mix.lo
	$(LIBTOOL) --tag CC --mode link $(CC) -o $@ mix.lo -rpath /usr/local/lib -version-info 1:0:0
ltprog: main.lo libmix.la
	$(LIBTOOL) --quiet --tag=CC --mode=link $(CC) -static -export-dynamic -no-install -o $@ main.lo libmix.la
	$(LIBTOOL) --mode=install install -c ltprog $(DESTDIR)/usr/local/bin/ltprog
	$(LIBTOOL) --mode=execute $(CC) -o ltcheck main.c
%.lo: %.c
	$(LIBTOOL) compile --tag CC $(CC) -O1 -c -o $@ $<
EOF
snapshot lt > lt-before.txt
check_exit "libtool: --list" 0 flamegraph-build --manifest-path lt --list
check_contains "libtool: the program its link mode writes" out "^bin +ltprog$"
check_not_contains "libtool: nothing from its execute mode" out "ltcheck"
check_exit "libtool: --bin ltprog" 0 flamegraph-build --manifest-path lt --bin ltprog -F 499 -o lt.svg --folded lt.folded
check_contains "libtool: ran" out "^ltprog: 1$"
check_contains "libtool: the library's function" lt.folded "main;lt_mix"
tr '\0' ' ' < lt/build/flamegraph/release/ltprog.link > lt-link.txt
check_contains "libtool: -export-dynamic is the driver's -rdynamic" lt-link.txt " -rdynamic"
check_not_contains "libtool: its -static never reaches the driver" lt-link.txt " -static( |$)"
readelf -d lt/build/flamegraph/release/ltprog > lt-dynamic.txt 2>&1 || true
check_contains "libtool: linked dynamically (libc shared)" lt-dynamic.txt "NEEDED.*libc\.so"
snapshot lt > lt-after.txt
check_same_file "libtool: the user's tree is unchanged" lt-before.txt lt-after.txt

# a Makefile that builds nothing with a compiler
mkdir nocc
printf 'all:\n\tpython3 build.py\n' > nocc/Makefile
check_exit "a dry run without compiler commands" 1 flamegraph-build --manifest-path nocc --list
check_contains "no compiler: says so and suggests bear" err "shows no compiler command it understands .*\(bear -- make\)"

# programs only another goal builds: `make test_programs` (`make check`
# runs them) and `make bench`, whose dry run fails on a missing input;
# the default listing stands
mkdir goals
printf 'int main(void) { return 0; }\n' > goals/app.c
printf 'int main(void) { volatile unsigned s = 0; for (unsigned i = 0; i < 100000000u; i++) s += i; return (int)(s & 1); }\n' > goals/test_sum.c
printf 'all: app\napp: app.o\n\t$(CC) -o $@ $^\n%%.o: %%.c\n\t$(CC) -O1 -c -o $@ $<\ntest_programs: test_sum\ntest_sum: test_sum.o\n\t$(CC) -o $@ $^\ncheck: test_programs\n\t./test_sum\nbench: speed\nspeed: speed.o missing.a\n\t$(CC) -o $@ $^\n.PHONY: all check test_programs bench\n' > goals/Makefile
snapshot goals > goals-before.txt
check_exit "goals: --list" 0 flamegraph-build --manifest-path goals --list
check_contains "goals: the default goal's program" out "^bin +app$"
check_contains "goals: make test_programs' program, a test" out "^test +test_sum$"
check_contains "goals: make bench fails in its dry run: nothing from it" out "^bench +\(none\)$"
check_exit "goals: --test test_sum" 0 flamegraph-build --manifest-path goals --test test_sum -F 499 -o goals.svg --folded goals.folded
check_contains "goals: test_sum's graph" goals.folded "^test_sum;.*main"
snapshot goals > goals-after.txt
check_same_file "goals: the user's tree is unchanged" goals-before.txt goals-after.txt
