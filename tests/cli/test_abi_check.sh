# The library as an embedder gets it (cmake --install): every public
# header compiles alone in C and in C++ (extern "C"), a C and a C++
# program build against the installed headers and shared library and run
# (options set up with the versioned _init functions), no private header
# is installed, and the exported symbols are the list kept in
# tests/abi/symbols.txt: a change of the exported surface is a decision,
# made by updating that list with it.
if grep -qs '^FG_SANITIZE:BOOL=ON' "$FG_BIN/CMakeCache.txt"; then
	echo "sanitizer build: the install is tested with the plain build" >&2
	exit 77
fi
prefix=$PWD/p
check_exit "cmake --install" 0 cmake --install "$FG_BIN" --prefix "$prefix"
inc=$prefix/include
lib=$(dirname "$(find "$prefix" -name 'libflamegraph.so' | head -1)")
[ -f "$lib/libflamegraph.so" ] && pass || fail "no installed libflamegraph.so"
[ ! -e "$inc/flamegraph/toml.h" ] && pass || fail "the manifest's private TOML reader is installed"

# each header alone, in both languages; a header that declares functions
# gives them C linkage in C++
for h in "$inc"/flamegraph/*.h; do
	name=$(basename "$h")
	if grep -q '^FG_API_BEGIN' "$h"; then
		grep -q 'extern "C"' "$h" && pass || fail "$name declares functions without extern \"C\""
	fi
	printf '#include <flamegraph/%s>\nint fg_abi_check_%s;\n' "$name" "${name%.h}" > one.c
	check_exit "$name compiles alone in C" 0 cc -std=c11 -Wall -Werror -fsyntax-only -I "$inc" one.c
	cp one.c one.cpp
	check_exit "$name compiles alone in C++" 0 c++ -std=c++17 -Wall -Werror -fsyntax-only -I "$inc" one.cpp
done

# a program in each language: the versioned options and a stage
cat > app.c <<'C'
#include <stdio.h>
#include <string.h>
#include <flamegraph/flamegraph.h>

int main(void)
{
	fg_profile_opts po;
	fg_build_profile_opts bo;
	fg_folded *f = NULL;

	if (fg_profile_opts_init(&po, FG_PROFILE_OPTS_VERSION) ||
	    fg_build_profile_opts_init(&bo, FG_BUILD_PROFILE_OPTS_VERSION)) {
		fprintf(stderr, "app: %s\n", fg_error_last());
		return 1;
	}
	/* a version the library does not know is refused, not misread */
	if (fg_profile_opts_init(&po, FG_PROFILE_OPTS_VERSION + 1) != FG_EINVAL)
		return 2;
	printf("freq %u, width %u, format %d\n", fg_record_freq(&po.record),
	       po.render.image_width, (int)po.format);
	if (fg_folded_new(&f) || fg_folded_feed(f, "main;work 3\nmain;rest 1\n", 24) ||
	    fg_folded_finish(f))
		return 3;
	printf("%zu stacks\n", fg_folded_count(f));
	fg_folded_free(f);
	return 0;
}
C
cp app.c app.cpp
check_exit "a C program builds against the install" 0 \
	cc -std=c11 -Wall -Werror -I "$inc" -o app-c app.c -L "$lib" -lflamegraph
check_exit "a C++ program builds against the install" 0 \
	c++ -std=c++17 -Wall -Werror -I "$inc" -o app-cpp app.cpp -L "$lib" -lflamegraph
for p in app-c app-cpp; do
	check_exit "$p runs" 0 env LD_LIBRARY_PATH="$lib" ./$p
	check_contains "$p: the defaults, named once" out '^freq 997, width 1200, format 0$'
	check_contains "$p: the library works" out '^2 stacks$'
done

# the exported surface
nm -D --defined-only "$lib/libflamegraph.so" | awk '{ print $3 }' | LC_ALL=C sort > exported.txt
if diff -u "$FG_SRC/tests/abi/symbols.txt" exported.txt > symbols.diff; then pass; else
	fail "the exported symbols changed (- kept list, + library): update tests/abi/symbols.txt if that is meant"
	sed 's/^/    | /' symbols.diff | head -40 >&2
fi
