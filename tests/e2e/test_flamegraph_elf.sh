# The ELF checks on real binaries, seen through flamegraph (the default
# recorder): clang -fuse-ld=lld gives the rosegment warning with its fix,
# relinking with -Wl,--no-rosegment silences it; no -g gives the
# debug-info warning.
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
command -v clang >/dev/null && command -v ld.lld >/dev/null || { echo "clang/lld not installed"; exit 77; }
src="$FG_SRC/examples/callgraph/callgraph.c"

clang -O2 -g -fuse-ld=lld -o cg-lld "$src"
check_exit "lld binary" 0 flamegraph -F 499 -o lld.svg -- ./cg-lld 300
check_contains "rosegment warning names LLD" err "warning: ./cg-lld was linked by .*LLD"
check_contains "rosegment warning gives the fix" err "relink with -Wl,--no-rosegment"

clang -O2 -g -fuse-ld=lld -Wl,--no-rosegment -o cg-noro "$src"
check_exit "lld --no-rosegment binary" 0 flamegraph -F 499 -o noro.svg -- ./cg-noro 300
check_not_contains "no rosegment warning after the fix" err "rosegment"

cc -O2 -o cg-nog "$src"
check_exit "binary without -g" 0 flamegraph -F 499 -o nog.svg -- ./cg-nog 300
check_contains "debug-info warning" err "warning: ./cg-nog has no debug info"
check_contains "debug-info fix" err "rebuild it with -g"

cc -O2 -g -o cg-g "$src"
check_exit "binary with -g" 0 flamegraph -F 499 -o g.svg -- ./cg-g 300
check_not_contains "no debug-info warning with -g" err "debug info"

# clang records its flags only with -grecord-command-line: then an -O2
# build without frame pointers is recognised; without it only the unwind
# tables could say, and this program has too few functions with a frame
# (fewer than 4) for them: no guess and no warning
clang -O2 -g -grecord-command-line -o cg-clang "$src"
check_exit "clang -O2 with recorded flags" 0 flamegraph --call-graph fp -F 499 -o c1.svg -- ./cg-clang 300
check_contains "clang: fp warning" err "cg-clang was built without frame pointers"
clang -O2 -g -grecord-command-line -fno-omit-frame-pointer -o cg-clang-fp "$src"
check_exit "clang -fno-omit-frame-pointer" 0 flamegraph --call-graph fp -F 499 -o c2.svg -- ./cg-clang-fp 300
check_not_contains "clang with frame pointers: no warning" err "frame pointers"
clang -O2 -g -o cg-clang-noflags "$src"
check_exit "clang without recorded flags" 0 flamegraph --call-graph fp -F 499 -o c3.svg -- ./cg-clang-noflags 300
check_not_contains "clang without recorded flags: no guess" err "frame pointers"
