# -o -: stdout carries the SVG and nothing else, whatever the build system,
# both when the build compiles and when it is up to date. Every child
# (configure, cmake, meson, make, compilers, perf) writes its stdout to
# stderr, so the build's chatter is still seen there.
# ctest: LABELS slow
require_perf

# checks that FILE is one well-formed SVG document and only that
svg_only() {
	local what=$1 file=$2
	if xmllint --noout "$file" 2>xmllint.err; then
		pass "$what: well-formed"
	else
		fail "$what: not well-formed XML: $(head -c 300 xmllint.err)"
	fi
	check_eq "$what: starts with the document" "<?xml" "$(head -c 5 "$file")"
	check_eq "$what: ends with </svg>" "</svg>" "$(tail -c 7 "$file" | tr -d '\n')"
}

# NAME MANIFEST BIN WHAT-THE-FIRST-BUILD-SAYS [ARGS...]
project() {
	local name=$1 manifest=$2 bin=$3 built=$4
	shift 4
	local i
	for i in 1 2; do
		flamegraph-build --manifest-path "$manifest" --bin "$bin" -F 199 -o - -- "$@" \
			> "$name.$i.svg" 2> "$name.$i.err"
		check_eq "$name run $i: exit" 0 "$?"
		svg_only "$name run $i" "$name.$i.svg"
	done
	check_contains "$name: the first run built" "$name.1.err" "$built"
	check_not_contains "$name: the second run compiled nothing" "$name.2.err" "compiling|Compiling C object|Building C object|mode=compile"
}

set +e
cp -r "$FG_SRC/examples/cmake" cm
rm -rf cm/build
project cmake "$PWD/cm" stress2 "Building C object" --rounds 5

cp -r "$FG_SRC/examples/meson" me
rm -rf me/build
project meson "$PWD/me" wordstat "Compiling C object" 10

cp -r "$FG_SRC/examples/toml" to
rm -rf to/build
project toml "$PWD/to" crunch "compiling"

cp -r "$FG_SRC/examples/make" mk
rm -rf mk/build
project make "$PWD/mk" primes "compiling" 2

cp -r "$FG_SRC/examples/make" cc
rm -rf cc/build
project compdb "$PWD/cc/compile_commands.json" primes "compiling" 2

if command -v autoreconf >/dev/null && command -v automake >/dev/null; then
	cp -r "$FG_SRC/examples/autotools" at
	rm -rf at/build
	project autotools "$PWD/at" crunch "mode=compile" 20
else
	echo "autoreconf/automake missing: the autotools case is not run" >&2
fi
set -e
