# flamegraph-build on examples/autotools, an autotools project kept as
# configure.ac and Makefile.am only: regenerated with autoreconf -fi in a
# copy (never in the user's tree), configured out of tree, targets by the
# Makefiles' kinds, a libtool library built in the tree and preferred to
# another copy of the same soname, a check program run as `make check`
# runs it, --features and -D as configure options, and the errors.
# ctest: LABELS slow
for tool in autoreconf automake libtoolize make; do
	command -v $tool >/dev/null || { echo "$tool not installed (apt-get install autoconf automake libtool make)"; exit 77; }
done
require_perf
cp -r "$FG_SRC/examples/autotools" ws
rm -rf ws/build
snapshot() { find "$1" -mindepth 1 -path "$1/build" -prune -o -printf '%p %T@ %s %m\n' | LC_ALL=C sort; }
snapshot ws > before.txt
fb() { flamegraph-build --manifest-path ws "$@"; }
rel=ws/build/flamegraph/release

check_exit "--list" 0 fb --list
check_contains "--list: the installed program is a bin" out "^bin +crunch$"
check_contains "--list: the check program is a test" out "^test +test_crunch$"
check_contains "--list: the noinst program is an example" out "^example +crunch-demo$"
check_contains "--list: regenerated in a copy" err "there is no configure script yet: running autoreconf -fi in a copy of the project \(.*/ws/build/flamegraph/release/flamegraph-source\); your tree is not touched"
check_contains "--list: configured out of tree" err "configuring .* \(release\) in .*/ws/build/flamegraph/release$"
check_eq "--list: configure ran from the copy" "yes" "$(grep -q "flamegraph-source/configure" $rel/config.log && echo yes)"

# a decoy libcrunch.so.1 first on the caller's library path: the
# in-tree library must still be the one that runs
mkdir decoy
cat > decoy/decoy.c <<'EOF'
#include <stddef.h>
#include <stdint.h>
uint64_t decoy_spin(const unsigned char *b, size_t n, unsigned r) { uint64_t h = 0; for (unsigned i = 0; i < r; i++) for (size_t k = 0; k < n; k++) h += b[k] * i; return h; }
uint64_t crunch_digest(const unsigned char *b, size_t n, unsigned r) { return decoy_spin(b, n, r); }
void crunch_fill(unsigned char *b, size_t n, uint64_t s) { for (size_t i = 0; i < n; i++) b[i] = (unsigned char)(s + i); }
const char *crunch_version(void) { return "decoy"; }
EOF
cc -shared -fPIC -o decoy/libcrunch.so.1 -Wl,-soname,libcrunch.so.1 decoy/decoy.c
check_exit "--bin crunch (a decoy library on LD_LIBRARY_PATH)" 0 env LD_LIBRARY_PATH="$PWD/decoy" \
	flamegraph-build --manifest-path ws --bin crunch -F 499 -o bin.svg --folded bin.folded -- 30
check_contains "--bin crunch: the in-tree library ran" out "^crunch 1.0: 30 rounds$"
check_contains "--bin crunch: the libtool wrapper resolved" err "crunch is a libtool wrapper: profiling .*/src/.libs/crunch with the in-tree libraries first: .*/release/lib/.libs"
check_contains "--bin crunch: the library's functions, rooted in main" bin.folded "^crunch;.*main;crunch_digest"
check_not_contains "--bin crunch: not the decoy's" bin.folded "decoy_spin"
readelf --debug-dump=info $rel/lib/.libs/libcrunch.so.1 2>/dev/null | grep -m1 DW_AT_producer > producer || true
check_contains "the library built with frame pointers" producer "-fno-omit-frame-pointer"
check_contains "the library built with -O2 -g" producer "-O2"
check_exit "--bin crunch again" 0 fb --bin crunch -F 499 -o bin2.svg -- 2
check_contains "second run: up to date" err "crunch is up to date"
check_not_contains "second run: no configure, no autoreconf" err "configuring|autoreconf"

# the check program: run where `make check` runs it, with srcdir (it
# reads $srcdir/rounds.txt)
check_exit "--test test_crunch" 0 fb --test test_crunch -F 499 -o test.svg --folded test.folded
check_contains "--test: found its data through srcdir" out "^test_crunch: 30 rounds: ok$"
check_contains "--test: the library's functions" test.folded "^test_crunch;.*main;crunch_digest"
check_exit "--example crunch-demo" 0 fb --example crunch-demo -F 499 -o demo.svg --folded demo.folded
check_contains "--example: ran" out "^crunch 1.0: [0-9a-f]{16}$"
check_exit "--bin crunch-demo (its kind is a guess)" 0 fb --bin crunch-demo -F 499 -o demo2.svg
check_contains "--bin crunch-demo: says what it guessed" err "crunch-demo is listed as an example \(a guess from its name and how it is built\); profiling it as asked"
check_exit "--test crunch (a bin: declared, not guessed)" 1 fb --test crunch
check_contains "--test crunch: names the flag" err "'crunch' is a bin, not a test: use --bin crunch"

# features and -D are configure's options
check_exit "--list-names feature" 0 fb --list-names feature
check_eq "--list-names feature: the project's own" "fast-mix checksum" "$(tr '\n' ' ' < out | sed 's/ $//')"
check_exit "--features fast-mix" 0 fb --features fast-mix --bin crunch -F 499 -o fast.svg -- 2
check_contains "--features fast-mix: configured again" err "configuring"
check_contains "--features fast-mix: --enable-fast-mix" out "^crunch 1.0 \(fast mix\): 2 rounds$"
check_contains "--features fast-mix: in config.h" $rel/config.h "define CRUNCH_FAST_MIX 1"
check_exit "--no-default-features" 0 fb --no-default-features --bin crunch -F 499 -o nodef.svg -- 2
check_not_contains "--no-default-features: --disable-checksum" out "checksum"
check_exit "no --features: defaults back" 0 fb --bin crunch -F 499 -o def.svg -- 2
check_contains "defaults back: checksum" out "^checksum "
check_not_contains "defaults back: no fast mix" out "fast mix"
check_exit "-D enable-fast-mix" 0 fb -D enable-fast-mix --bin crunch -F 499 -o d.svg -- 2
check_contains "-D enable-fast-mix: passed as --enable-fast-mix" out "\(fast mix\)"
check_exit "--features fastmix (a typo)" 1 fb --features fastmix --list
check_contains "unknown feature: did you mean" err "unknown feature 'fastmix' — did you mean 'fast-mix'\? .*configure offers --enable/--with for: fast-mix, checksum"
check_exit "-D enable-fastmix (a typo)" 1 fb -D enable-fastmix --list
check_contains "unknown -D: did you mean" err "configure has no option --enable-fastmix — did you mean --enable-fast-mix\?"
check_exit "--dev" 0 fb --dev --bin crunch -F 499 -o dev.svg -- 1
check_contains "--dev: its own folder" err "configuring .* \(dev\) in .*/ws/build/flamegraph/dev$"
check_contains "--dev: -O0" ws/build/flamegraph/dev/config.log "CFLAGS=.*-O0 -g -fno-omit-frame-pointer"
check_exit "--profile fast" 1 fb --profile fast --list
check_contains "--profile: what to use" err "no profile 'fast' for an autotools project — use release"

snapshot ws > after.txt
check_same_file "the user's tree is unchanged" before.txt after.txt

# a tree with a current configure is configured from where it is; one
# configured in place is copied (configure refuses to build elsewhere)
cp -r "$FG_SRC/examples/autotools" gen
(cd gen && autoreconf -fi >/dev/null 2>&1)
snapshot gen > gen-before.txt
check_exit "a generated tree: --bin crunch" 0 flamegraph-build --manifest-path gen/configure --bin crunch -F 499 -o gen.svg -- 2
check_not_contains "a generated tree: no autoreconf" err "autoreconf"
check_eq "a generated tree: configured from it" "yes" "$(grep -q "\$ $PWD/gen/configure " gen/build/flamegraph/release/config.log && echo yes)"
snapshot gen > gen-after.txt
check_same_file "a generated tree: unchanged" gen-before.txt gen-after.txt
(cd gen && ./configure >/dev/null 2>&1 && make -s >/dev/null 2>&1)
snapshot gen > inplace-before.txt
check_exit "a tree configured in place" 0 flamegraph-build --manifest-path gen --bin crunch -F 499 -o inplace.svg --folded inplace.folded -- 20
check_contains "configured in place: says it copies" err "is configured in place: configuring a copy of it"
check_contains "configured in place: the graph" inplace.folded "main;crunch_digest"
snapshot gen > inplace-after.txt
check_same_file "configured in place: unchanged" inplace-before.txt inplace-after.txt

# configure failing: its last lines and config.log, exit 2, no graph
cp -r "$FG_SRC/examples/autotools" broken
sed -i 's/^LT_INIT$/LT_INIT\nAC_CHECK_LIB([crunchmissing], [crunch_missing], [], [AC_MSG_ERROR([libcrunchmissing is required])])/' broken/configure.ac
check_exit "configure fails" 2 flamegraph-build --manifest-path broken --bin crunch -o broken.svg
check_contains "configure fails: its last lines" err "configure: error: libcrunchmissing is required"
check_contains "configure fails: config.log's path" err "the whole story is in .*/broken/build/flamegraph/release/config.log"
check_eq "configure fails: no graph" "no" "$([ -e broken.svg ] && echo yes || echo no)"
check_not_contains "configure fails: nothing recorded" err "wrote |samples|perf record"
check_exit "configure fails again (no stamp kept)" 2 flamegraph-build --manifest-path broken --list
finish
