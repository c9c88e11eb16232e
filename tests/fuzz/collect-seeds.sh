#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets from the shared conformance
# data, as symbolic links (nothing is copied into the source tree):
#   collect-seeds.sh CONFORMANCE_DIR OUT_DIR
# OUT_DIR/<target>/ then holds one entry per seed. diff seeds are
# generated files: "BEFORE\n====\nAFTER", the input form of fuzz_diff.c.
set -euo pipefail
if [ $# -ne 2 ]; then
	echo "usage: $0 CONFORMANCE_DIR OUT_DIR" >&2
	exit 2
fi
out=$2
targets="collapse_perf collapse_perf_mt collapse_dtrace collapse_guess collapse_recursive collapse_sample collapse_vtune collapse_vsprof collapse_ghcprof collapse_xctrace render diff toml compdb tomlproj"
# without the reference data beside the checkout the replays still run,
# over the committed corpus and crashes
if [ ! -d "$1" ]; then
	echo "collect-seeds: no reference data at $1: no seeds from it, the replays use the committed corpus"
	for t in $targets; do mkdir -p "$out/$t"; done
	exit 0
fi
conf=$(cd "$1" && pwd)
if [ ! -f "$conf/cases.tsv" ]; then
	echo "collect-seeds: $conf does not look like the conformance folder (no cases.tsv) — pass \$FG_SHARED/conformance" >&2
	exit 1
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

# link TARGET FILE...: one link per file, named after its path under conf
link() {
	local target=$1 f name
	shift
	mkdir -p "$out/$target"
	for f in "$@"; do
		[ -f "$f" ] || continue
		name=${f#"$conf"/}
		ln -sfn "$f" "$out/$target/${name//\//__}"
	done
}

# only the folders this script makes: OUT_DIR may hold other things
for t in $targets; do
	rm -rf "${out:?}/$t"
done
shopt -s nullglob globstar
perf=("$conf"/flamegraph-pl/perf-*.txt "$conf"/inferno/collapse-perf/*.txt "$conf"/inferno/collapse-guess/*.txt)
dtrace=("$conf"/flamegraph-pl/example-dtrace-stacks.txt "$conf"/inferno/collapse-dtrace/*.txt)
folded=("$conf"/flamegraph-pl/results/*.txt "$conf"/inferno/collapse-*/results/*.txt
	"$conf"/inferno/flamegraph/**/*.txt "$conf"/inferno/diff-folded/**/*.txt)

link collapse_perf "${perf[@]}"
link collapse_perf_mt "${perf[@]}"
link collapse_dtrace "${dtrace[@]}"
link collapse_guess "${perf[@]}" "${dtrace[@]}" "$conf"/inferno/collapse-{sample,vtune,vsprof,ghcprof,xctrace}/*.*
link collapse_recursive "$conf"/inferno/collapse-recursive/*.txt "$conf"/inferno/collapse-perf/results/*.txt
link collapse_sample "$conf"/inferno/collapse-sample/*.txt
link collapse_vtune "$conf"/inferno/collapse-vtune/*.csv
link collapse_vsprof "$conf"/inferno/collapse-vsprof/*.csv
link collapse_ghcprof "$conf"/inferno/collapse-ghcprof/*.prof
link collapse_xctrace "$conf"/inferno/collapse-xctrace/*.xml
link render "${folded[@]}"
link toml "$conf"/toml-test/valid/**/*.toml "$conf"/toml-test/invalid/**/*.toml

mkdir -p "$out/diff"
i=0
while IFS=$'\t' read -r before after _; do
	case $before in '#'*|'') continue ;; esac
	i=$((i + 1))
	{ cat "$conf/$before"; printf '\n====\n'; cat "$conf/$after"; } > "$out/diff/case-$i.txt"
done < "$conf/diff-cases.tsv"
link diff "$conf"/inferno/diff-folded/*.txt

# compile databases: the example project's own
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out/compdb"
ln -sfn "$src/examples/make/compile_commands.json" "$out/compdb/examples__make.json"

# flamegraph.toml manifests: the example project's and the hand-made
# manifests of the TOML corpus
mkdir -p "$out/tomlproj"
ln -sfn "$src/examples/toml/flamegraph.toml" "$out/tomlproj/examples__toml.toml"
for f in "$src"/tests/fuzz/corpus/toml/manifest-*.toml; do
	[ -f "$f" ] && ln -sfn "$f" "$out/tomlproj/toml-corpus__$(basename "$f")"
done

# CMake File API replies of a real configure of examples/cmake, packed
# into the ">>> NAME" form of fuzz_cmake_reply.c (made once: configuring
# and building take seconds; delete OUT_DIR/cmake_reply to redo it)
pack_replies() {
	local bdir=$out/.cmake-example reply f
	rm -rf "$bdir"
	mkdir -p "$bdir/.cmake/api/v1/query"
	touch "$bdir/.cmake/api/v1/query/codemodel-v2" "$bdir/.cmake/api/v1/query/cache-v2"
	cmake -S "$src/examples/cmake" -B "$bdir" >/dev/null 2>&1 || return 1
	# built, so that ctest lists the tests' commands
	cmake --build "$bdir" -j2 >/dev/null 2>&1 || return 1
	reply=$bdir/.cmake/api/v1/reply
	mkdir -p "$out/cmake_reply"
	{
		for f in "$reply"/*.json; do
			printf '>>> %s\n' "$(basename "$f")"
			cat "$f"
			printf '\n'
		done
		printf '>>> ctest.json\n'
		(cd "$bdir" && ctest --show-only=json-v1)
	} > "$out/cmake_reply/examples__cmake.txt.tmp" &&
		mv "$out/cmake_reply/examples__cmake.txt.tmp" "$out/cmake_reply/examples__cmake.txt"
	rm -rf "$bdir"
}
if [ ! -s "$out/cmake_reply/examples__cmake.txt" ]; then
	if command -v cmake >/dev/null && command -v ctest >/dev/null; then
		pack_replies || echo "collect-seeds: configuring $src/examples/cmake failed: no cmake_reply seed from it" >&2
	else
		echo "collect-seeds: cmake not installed: no cmake_reply seed from examples/cmake" >&2
	fi
fi

for d in "$out"/*/; do
	echo "collect-seeds: $(basename "$d"): $(find "$d" -mindepth 1 | wc -l) seeds"
done
