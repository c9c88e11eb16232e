# system = "command": flamegraph-build runs the project's own build command
# ({jobs} substituted, no shell), with CFLAGS carrying the frame-pointer
# flags, then profiles each target's `path`.
require_perf
mkdir -p proj/src
cat > proj/src/tool.c <<'C'
#include <stdio.h>
#include <stdlib.h>
static __attribute__((noinline)) unsigned long spin_work(unsigned long n)
{
	unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + i;
	return x;
}
int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	printf("tool: %lu\n", spin_work(n * 1000000ul) & 1);
	return 0;
}
C
cat > proj/build.sh <<'SH'
set -e
echo "build.sh jobs=$1 profile=$FLAMEGRAPH_PROFILE cflags=$CFLAGS"
mkdir -p out
[ out/tool -nt src/tool.c ] || cc $CFLAGS -o out/tool src/tool.c
SH
cat > proj/flamegraph.toml <<'TOML'
[package]
name = "tool"
[build]
system = "command"
command = "sh build.sh {jobs}"
[[bin]]
name = "tool"
path = "out/tool"
args = ["300"]
TOML
fgb() { flamegraph-build --manifest-path "$PWD/proj" "$@"; }

check_exit "command build + profile" 0 fgb --bin tool -o t.svg --folded t.folded
# (the build command's output goes to stderr, as every child's but the
# program's: stdout may be the graph)
check_contains "jobs substituted" err "build.sh jobs=[0-9]+ profile=release"
check_contains "CFLAGS carry frame pointers" err "cflags=.*-g -fno-omit-frame-pointer"
check_contains "graph" t.folded "main;spin_work"
check_exit "second run" 0 fgb --bin tool -o t2.svg -- 50
check_contains "command's output unchanged: up to date" err "tool is up to date"
# a failing command: exit 2
printf 'exit 3\n' > proj/build.sh
check_exit "failing command" 2 fgb --bin tool
check_contains "failing command says so" err "the build command failed \(exit 3"
# a path the command does not write
printf 'true\n' > proj/build.sh
sed -i 's#out/tool#out/missing#' proj/flamegraph.toml
check_exit "missing path" 1 fgb --bin tool
check_contains "missing path named" err "out/missing — fix its \`path\`"
# [build] ldflags reach the command as LDFLAGS; a program the command
# links with lld gets the rosegment warning with the flamegraph.toml fix
if command -v ld.lld >/dev/null; then
	mkdir -p lld/src
	cp proj/src/tool.c lld/src/
	cat > lld/build.sh <<'SH'
set -e
echo "ldflags=$LDFLAGS"
mkdir -p out
cc $CFLAGS $LDFLAGS -o out/tool src/tool.c
SH
	cat > lld/flamegraph.toml <<'TOML'
[package]
name = "tool"
[build]
system = "command"
command = "sh build.sh"
ldflags = ["-fuse-ld=lld"]
[[bin]]
name = "tool"
path = "out/tool"
TOML
	check_exit "command build linked by lld" 0 flamegraph-build --manifest-path "$PWD/lld" --bin tool -o l.svg -- 50
	check_contains "LDFLAGS from [build] ldflags" err "ldflags=-fuse-ld=lld$"
	check_contains "rosegment warning" err "warning: .*tool was linked by .*LLD"
	check_contains "the fix in flamegraph.toml terms" err 'add ldflags = \["-Wl,--no-rosegment"\] to \[build\] in flamegraph.toml'
	sed -i 's/ldflags = \["-fuse-ld=lld"\]/ldflags = ["-fuse-ld=lld", "-Wl,--no-rosegment"]/' lld/flamegraph.toml
	check_exit "after the fix" 0 flamegraph-build --manifest-path "$PWD/lld" --bin tool -o l2.svg -- 50
	check_not_contains "no rosegment warning after the fix" err "warning: .*LLD|--no-rosegment\"\] to"
fi
