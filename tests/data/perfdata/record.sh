#!/usr/bin/env bash
# Records the perf.data fixtures of tests/unit/test_perfdata_fixtures.c
# with the perf at hand (PERF, default perf), in OUT (default: this
# folder), named for perf's version (V: 6.12, 5.10...):
#   V-fp.data        frame pointers, file form, one event
#   V-fp-D.data      the same, recorded after a delay (-D): perf adds a
#                    dummy tracking event (6.x: of a sample format of its
#                    own), as it does when it attaches or records all CPUs
#   V-pipe-fp-D.data the same in the pipe form (perf record -o -)
#   V-dwarf-D.data   dwarf call graphs (a 1 KB stack copy), with -D
# of fixture.c, built here with frame pointers and copied into the
# build-id cache layout of OUT/buildid (the pipe form names no build ids:
# the test finds the file's symbols from the addresses). For each, the
# stacks perf script gives (V-*.stacks): of the samples whose first user
# frame is the program's, the program's frames up to the first frame of
# another file (unwinding past libc depends on the machine's libc), root
# first, and how many samples have them. Run it where the program's path is the same each
# time: /root/fg-perfdata-fixtures (a container, or scripts/test-distro).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:-$here}" && cd "${1:-$here}" && pwd)
perf=${PERF:-perf}
v=$($perf --version | sed -n 's/^perf version \([0-9]*\.[0-9]*\).*/\1/p')
work=/root/fg-perfdata-fixtures
mkdir -p "$work"
# the pipe form names no build ids: a program left at this path would be
# read for another recording's
trap 'rm -rf "$work"' EXIT
cd "$work"
rm -f "$out/$v"-*
cc -O2 -fno-omit-frame-pointer -pthread -o fixture "$here/fixture.c"
id=$(readelf -n fixture | awk '/Build ID/ { print $3 }')
mkdir -p "$out/buildid/.build-id/${id:0:2}/${id:2}"
cp fixture "$out/buildid/.build-id/${id:0:2}/${id:2}/elf"
rec() {
	$perf record -q --no-buildid-cache "$@" -- ./fixture 400
}
rec -F 499 -g -o "$out/$v-fp.data"
rec -D 10 -F 499 -g -o "$out/$v-fp-D.data"
rec -D 10 -F 499 -g -o - >"$out/$v-pipe-fp-D.data"
rec -D 10 -F 99 --call-graph dwarf,1024 -o "$out/$v-dwarf-D.data"
for f in "$out/$v"-*.data; do
	$perf script -i "$f" 2>/dev/null | awk '
		function done_sample() {
			if (n && first) { s = ""; for (i = n; i >= 1; i--) s = s (s == "" ? "" : ";") f[i]; count[s]++ }
			n = 0; first = 0; seen = 0; in_program = 0
		}
		/^[^ \t]/ { done_sample(); next }
		/^$/ { done_sample(); next }
		{
			dso = $NF; sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym)
			if (dso ~ /kernel\.kallsyms/) next
			if (!seen) { seen = 1; first = dso ~ /\/fixture\)$/; in_program = first }
			if (dso !~ /\/fixture\)$/) in_program = 0
			if (in_program) f[++n] = sym
		}
		END { done_sample(); for (s in count) print s, count[s] }' | sort >"${f%.*}.stacks"
done
ls -l "$out/$v"-*
