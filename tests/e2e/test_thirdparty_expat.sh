# flamegraph-build on Debian's expat through autotools (its configure.ac,
# named with --manifest-path: its CMakeLists.txt would win the search),
# from its unpacked source: xmlwf is a libtool wrapper around the real
# program, which links the libexpat.so.1 built in the tree while the
# system holds its own libexpat.so.1: the in-tree one must run (the graph
# names its static functions, which the system's stripped copy lacks, and
# the recording maps it); its tests are check_PROGRAMS (--test runtests,
# run where `make check` runs it). Its CMake build lists the test
# programs as tests too (CTest runs them through a shell script: their
# kind is a guess from their names and folder, tests/).
# ctest: LABELS thirdparty
for tool in autoreconf automake libtoolize make; do
	command -v $tool >/dev/null || { echo "$tool not installed (apt-get install autoconf automake libtool make)"; exit 77; }
done
require_perf
fetch_source expat || return 0
dir=$source_dir
cp -r "$dir/expat" expat
snapshot() { find "$1" -mindepth 1 -path "$1/build" -prune -o -printf '%p %T@ %s %m\n' | LC_ALL=C sort; }
snapshot expat >before.txt
python3 - <<'PY'
import random
random.seed(1)
with open("big.xml", "w") as f:
    f.write('<?xml version="1.0"?>\n<root>\n')
    for i in range(200000):
        f.write('<item id="%d" kind="k%d"><name>item &amp; %d</name><v>%f</v></item>\n'
                % (i, i % 17, i, random.random()))
    f.write("</root>\n")
PY
fb() { (cd expat && flamegraph-build --manifest-path configure.ac "$@"); }

check_exit "--list (autotools)" 0 fb --list
check_contains "--list: autotools in a folder apart from CMake's" err "configure.ac: building with autotools in build/flamegraph/autotools/release, apart from the cmake build found first"
check_contains "--list: xmlwf, a bin_PROGRAMS program" out "^bin +xmlwf$"
check_contains "--list: runtests, a check_PROGRAMS program" out "^test +runtests, runtestspp$"
check_exit "--bin xmlwf" 0 fb --bin xmlwf -o ../xmlwf.svg --folded ../xmlwf.folded --perfdata-out ../xmlwf.data -- ../big.xml
check_contains "xmlwf: a libtool wrapper, the real program profiled" err "xmlwf is a libtool wrapper: profiling .*/xmlwf/\.libs/xmlwf with the in-tree libraries first"
check_contains "xmlwf: the parser under main" xmlwf.folded ";main;.*XML_ParseBuffer;"
check_contains "xmlwf: the in-tree library's static functions" xmlwf.folded ";(doContent|storeAtts|contentProcessor);"
perf script -F ip,dso -i xmlwf.data 2>/dev/null | grep -o '([^)]*)' | sort -u >dsos.txt
check_contains "xmlwf: the in-tree libexpat.so.1 ran" dsos.txt "build/flamegraph/autotools/release/lib/\.libs/libexpat\.so"
check_not_contains "xmlwf: not the system's" dsos.txt "^\(/(usr/)?lib/x86_64-linux-gnu/libexpat"
check_exit "--test runtests" 0 fb --test runtests --call-graph fp -o ../rt.svg --folded ../rt.folded
check_contains "runtests: its own output" out "Checks: [0-9]+, Failed: 0"
check_contains "runtests: its suite under main" rt.folded "^runtests;.*main;srunner_run_all;"
snapshot expat >after.txt
check_same_file "expat: the user's tree is unchanged" before.txt after.txt

# CMake, the default: the test programs, run through a shell script, are
# tests by their names and folder
rm -rf expat/build
check_exit "--list (CMake)" 0 sh -c "cd expat && flamegraph-build --list"
check_contains "CMake: xmlwf, installed, is a bin" out "^bin +xmlwf$"
check_contains "CMake: runtests (tests/runtests.c) is a test" out "^test +runtests, runtestspp, "
