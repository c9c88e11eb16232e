# Debian 11's /usr/bin/perf is a script that runs perf_X.Y, the perf of
# the running kernel's version X.Y, and fails when that version is not
# installed (a kernel from backports, a chroot or container on a newer
# kernel). Then flamegraph --recorder perf records with the newest perf
# installed beside the script, and a note says which and what to install
# for the kernel's own. A perf named by PERF is used as it is (and records
# without --recorder).
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
real=$(command -v perf)
if ! "$real" --version >/dev/null 2>&1; then
	echo "the perf on PATH cannot run here"; exit 77
fi
cc -O2 -g -fno-omit-frame-pointer -o callgraph "$FG_SRC/examples/callgraph/callgraph.c"
mkdir bin
# the wrapper, for a kernel whose perf is not there
printf '#!/bin/sh\necho "E: linux-perf-$(uname -r | cut -d. -f1,2) is not installed." >&2\nexit 1\n' >bin/perf
# two other versions: the newer one records, the older must not run
printf '#!/bin/sh\nexec %s "$@"\n' "$real" >bin/perf_5.10
printf '#!/bin/sh\necho "the older perf ran" >&2\nexit 99\n' >bin/perf_5.9
chmod +x bin/perf bin/perf_5.10 bin/perf_5.9

PATH="$PWD/bin:$PATH" check_exit "another kernel's perf records" 0 \
	flamegraph --recorder perf --call-graph fp -o g.svg --folded g.folded -- ./callgraph 300
check_contains "the note: the wrapper, the kernel, the perf chosen" err \
	"note: .*/bin/perf holds no perf for the running kernel $(uname -r) \(the package linux-perf-[0-9]+\.[0-9]+\): recording with .*/bin/perf_5\.10"
check_contains "the note: what to install" err "install linux-perf-[0-9]+\.[0-9]+ for the kernel's own"
check_not_contains "the older perf did not run" err "the older perf ran"
check_contains "the graph: main calls a" g.folded "^callgraph;.*main;(outer;)?a [0-9]+$"

# PERF names the wrapper: it is used as it is, and its failure is told
PATH="$PWD/bin:$PATH" PERF=$PWD/bin/perf check_exit "PERF: the wrapper as it is" 3 \
	flamegraph --call-graph fp -o h.svg -- ./callgraph 100
check_contains "PERF: the wrapper's failure" err "perf cannot run: it is a wrapper"
check_not_contains "PERF: no other perf chosen" err "recording with"
