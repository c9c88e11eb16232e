# The ELF checks on real binaries, seen through flamegraph with real perf:
# clang -fuse-ld=lld gives the rosegment warning with its fix, relinking
# with -Wl,--no-rosegment silences it; no -g gives the debug-info warning.
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
