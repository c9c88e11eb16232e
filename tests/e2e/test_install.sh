# The complete install, used from the install prefix only: every program
# runs, profiles an example, man pages and completions are in their
# folders (bash completion offers the project's real target names), and a
# C program builds against the installed library through pkg-config and
# through CMake's find_package.
# a sanitizer build is not one to install: programs linked against its
# library would need the sanitizer runtime loaded first
if grep -qs '^FG_SANITIZE:BOOL=ON' "$FG_BIN/CMakeCache.txt"; then
	echo "sanitizer build: the install is tested with the plain build" >&2
	exit 77
fi
prefix=$PWD/prefix
check_exit "cmake --install" 0 cmake --install "$FG_BIN" --prefix "$prefix"
# from here on, nothing of the build folder
export PATH="$prefix/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
programs="flamegraph flamegraph-build flamegraph-collapse-perf flamegraph-collapse-dtrace
	flamegraph-collapse-guess flamegraph-render flamegraph-diff-folded"
for p in $programs; do
	[ "$(command -v "$p")" = "$prefix/bin/$p" ] && pass || fail "$p is not the installed one"
	check_exit "$p --version" 0 "$p" --version
	check_contains "$p --version: a version" out "[0-9]+\.[0-9]+\.[0-9]+"
	[ -f "$prefix/share/man/man1/$p.1" ] && pass || fail "no man page for $p"
	[ -s "$prefix/share/bash-completion/completions/$p" ] && pass || fail "no bash completion for $p"
	[ -s "$prefix/share/zsh/site-functions/_$p" ] && pass || fail "no zsh completion for $p"
	[ -s "$prefix/share/fish/vendor_completions.d/$p.fish" ] && pass || fail "no fish completion for $p"
	bash -c "source '$prefix/share/bash-completion/completions/$p'" && pass || fail "bash cannot load the completion of $p"
done
[ -f "$prefix/share/man/man5/flamegraph.toml.5" ] && pass || fail "no flamegraph.toml(5)"

# completing --bin in the CMake example offers its real target
cp -r "$FG_SRC/examples/cmake" cmake-proj
rm -rf cmake-proj/build
offered=$(cd cmake-proj && bash -c "source '$prefix/share/bash-completion/completions/flamegraph-build'
	COMP_WORDS=(flamegraph-build --bin ''); COMP_CWORD=2; _flamegraph_build; echo \"\${COMPREPLY[*]}\"")
[ "$offered" = "stress2" ] && pass || fail "completing --bin offered '$offered', not stress2"

# the installed flamegraph-build profiles an example
cp -r "$FG_SRC/examples/toml" toml-proj
rm -rf toml-proj/build
check_exit "installed flamegraph-build" 0 flamegraph-build --manifest-path toml-proj --bin crunch \
	--call-graph fp -o crunch.svg --folded crunch.folded
check_contains "installed flamegraph-build: the example's functions" crunch.folded "main;"
# --alloc finds the installed interposer beside the programs (the build
# tree's copy gone from view: only the prefix is on PATH)
[ -f "$prefix/lib/flamegraph-build/libflamegraph-alloc.so" ] && pass || fail "no installed libflamegraph-alloc.so"
check_exit "installed flamegraph-build --alloc" 0 flamegraph-build --manifest-path toml-proj --bin crunch \
	--alloc=count --format folded -o crunch-alloc.folded
check_contains "installed --alloc: allocations counted" err "wrote crunch-alloc.folded \\(count: [0-9]+ allocations"

# the library: shared with a versioned SONAME, and static
lib=$(find "$prefix" -name 'libflamegraph.so.*.*' | head -1)
[ -n "$lib" ] && pass || fail "no versioned libflamegraph.so"
# (outputs go through files: grep -q ending a pipe early would fail it)
readelf -d "$lib" > dynamic.txt
grep -q 'SONAME.*libflamegraph\.so\.[0-9]' dynamic.txt && pass || fail "libflamegraph.so has no versioned SONAME"
[ -n "$(find "$prefix" -name libflamegraph.a)" ] && pass || fail "no libflamegraph.a"
libdir=$(dirname "$lib")
# only the public API is exported
nm -D --defined-only "$lib" > exported.txt
grep -q ' T fg_folded_new$' exported.txt && pass || fail "fg_folded_new is not exported"
grep -q ' T fg_strbuf_addf$' exported.txt && fail "internal fg_strbuf_addf is exported" || pass

cat > app.c <<'EOF'
#include <stdio.h>
#include <flamegraph/flamegraph.h>

int main(void)
{
	fg_folded *f = NULL;

	if (fg_folded_new(&f) || fg_folded_feed(f, "main;work 3\nmain;rest 1\n", 24) ||
	    fg_folded_finish(f)) {
		fprintf(stderr, "app: %s\n", fg_error_last());
		return 1;
	}
	printf("%zu stacks\n", fg_folded_count(f));
	fg_folded_free(f);
	return 0;
}
EOF
export PKG_CONFIG_PATH=$libdir/pkgconfig
check_exit "pkg-config knows flamegraph" 0 pkg-config --modversion flamegraph
check_exit "build with pkg-config" 0 sh -c 'cc -o app-pc app.c $(pkg-config --cflags --libs flamegraph)'
check_exit "run (pkg-config build)" 0 env LD_LIBRARY_PATH="$libdir" ./app-pc
check_contains "run (pkg-config build): it works" out "^2 stacks$"

mkdir -p cm
cp app.c cm/
cat > cm/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(app C)
find_package(flamegraph REQUIRED)
add_executable(app app.c)
target_link_libraries(app PRIVATE flamegraph::flamegraph)
EOF
check_exit "find_package: configure" 0 cmake -S cm -B cm/build -DCMAKE_PREFIX_PATH="$prefix"
check_exit "find_package: build" 0 cmake --build cm/build
check_exit "run (find_package build)" 0 env LD_LIBRARY_PATH="$libdir" cm/build/app
check_contains "run (find_package build): it works" out "^2 stacks$"
