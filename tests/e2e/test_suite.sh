# flamegraph-build --tests and --benches on the bundled examples, with
# real cmake, meson, cc and perf: one graph and one folded file per test
# the project lists, the merged graph with a root frame per test, the
# index and summary.json read back; the selection by regular expression,
# a failing and a crashing test recorded while the others' graphs are
# written (exit 5), the usage errors (exit 1) and an interrupted suite
# (exit 130, its outputs describing the tests done).
require_perf
cp -r "$FG_SRC/examples/cmake" proj
rm -rf proj/build
fgb() { flamegraph-build --manifest-path "$PWD/proj" "$@"; }

# summary FILE EXPR...: each python expression holds of summary.json's
# object d (its tests by name in t); one failure per expression that does not
summary() {
	local file=$1
	shift
	python3 - "$file" "$@" >summary.out 2>&1 <<'PY' || true
import json, sys
d = json.load(open(sys.argv[1]))
t = {e["name"]: e for e in d["tests"]}
for expr in sys.argv[2:]:
    try:
        ok = eval(expr)
    except Exception as e:
        ok = False
        expr += " (%s: %s)" % (type(e).__name__, e)
    print(("ok " if ok else "not ") + expr)
PY
	while IFS= read -r line; do
		case $line in
		"ok "*) pass ;;
		*) fail "$file: $line" ;;
		esac
	done <summary.out
}

# ---- every test of the CMake example ---------------------------------------
check_exit "--list-names test" 0 fgb --list-names test
check_contains "the example lists the program its CTest tests run" out "^unit_tests$"
# unit_tests is the program that table_suite and all_units run (CTest's
# add_test): the suite runs it as CTest does, not once more on its own
sort out | grep -vx unit_tests >names.txt
check_eq "the example lists tests" yes "$([ "$(wc -l <names.txt)" -ge 2 ] && echo yes)"
check_exit "--tests" 0 fgb --tests -o suite -F 299
check_contains "--tests says where the index is" err "note: [0-9]+ tests: [0-9]+ passed, 0 failed.*suite/index.html"
while IFS= read -r name; do
	check_eq "$name: its graph" yes "$([ -s "suite/$name.svg" ] && echo yes)"
	check_eq "$name: its folded stacks" yes "$([ -s "suite/$name.folded" ] && echo yes)"
	check_contains "$name: in the index, linked to its graph" suite/index.html "<a href=\"$name\.svg\">$name</a>"
done <names.txt
# nothing but the listed tests' graphs and the merged one
(cd suite && ls -- *.svg) | sed 's/\.svg$//' | grep -vx all | sort >graphs.txt
check_same_file "one graph per listed test" names.txt graphs.txt
check_eq "index.html" yes "$([ -s suite/index.html ] && echo yes)"
# table_suite runs the table case alone: the table's functions, no hash case
check_contains "table_suite's stacks: the table's functions under its case" suite/table_suite.folded "main;case_table;table_(lookup_all|insert)"
check_not_contains "table_suite's stacks: its filter applied" suite/table_suite.folded "case_hash|case_sort"
"$FG_SRC/tests/tools/svg-frames" suite/table_suite.svg >table.frames
check_contains "table_suite's graph: a frame of table_lookup_all" table.frames "^table_lookup_all	"
check_contains "all_units' stacks: every case" suite/all_units.folded "main;case_sort"
python3 - suite names.txt <<'PY' >merged.out 2>&1 && pass || { fail "all.svg: a root frame per test"; cat merged.out >&2; }
# each test's root frame in all.svg weighs what its folded stacks weigh,
# and together they are the whole graph
import subprocess, sys, os
d, names = sys.argv[1], open(sys.argv[2]).read().split()
frames = subprocess.run([os.environ["FG_SRC"] + "/tests/tools/svg-frames", d + "/all.svg"],
                        check=True, capture_output=True, text=True).stdout.splitlines()
widths = {}
for f in frames:
    name, x, w = f.split("\t")
    widths.setdefault(name, set()).add(int(w))
whole = 0
for n in names:
    total = sum(int(l.rsplit(" ", 1)[1]) for l in open("%s/%s.folded" % (d, n)))
    assert total > 0 and total in widths.get(n, ()), (n, total, widths.get(n))
    whole += total
assert widths["all"] == {whole}, (widths["all"], whole)
PY
summary suite/summary.json \
	'd["kind"] == "test" and d["pattern"] is None and d["interrupted"] is False' \
	'd["merged"] == "all.svg"' \
	"sorted(t) == open('names.txt').read().split()" \
	'len(d["tests"]) == len(t) == d["totals"]["tests"] == d["totals"]["passed"]' \
	'd["totals"]["failed"] == 0' \
	'all(e["status"] == "passed" and e["exit_code"] == 0 and e["signal"] is None for e in d["tests"])' \
	'all(e["graph"] == e["name"] + ".svg" and e["folded"] == e["name"] + ".folded" for e in d["tests"])' \
	'all(e["samples"] > 0 and e["wall_seconds"] > 0 and e["cpu_seconds"] > 0 for e in d["tests"])' \
	'all(0 < h["share"] <= 1 for e in d["tests"] for h in e["hot"])' \
	'all(sum(h["share"] for h in e["hot"]) <= 1.0001 for e in d["tests"])' \
	't["table_suite"]["hot"][0]["function"] in ("table_lookup_all", "hash_fnv1a", "table_insert")'
cp suite/all.svg "$FG_ARTIFACTS/suite-all.svg" 2>/dev/null || true

# ---- selection ---------------------------------------------------------------
# a POSIX extended expression matched anywhere in the name
check_exit "--tests=_suite\$" 0 fgb --tests='_suite$' -o sel -F 299
summary sel/summary.json \
	'[e["name"] for e in d["tests"]] == ["table_suite"]' \
	'd["pattern"] == "_suite$"' \
	't["table_suite"]["status"] == "passed"'
check_eq "--tests=_suite\$: one graph" "all.svg table_suite.svg" "$(cd sel && echo *.svg)"
check_exit "--tests=nomatch" 1 fgb --tests=nomatch -o none
check_contains "nomatch: says so, naming the tests on one line" err "^flamegraph-build: error: no test of stress matches 'nomatch' — its tests: ([a-z_]+, )+[a-z_]+$"
for name in $(cat names.txt); do
	check_contains "nomatch: names $name" err "its tests: (.*, )?$name(,|$)"
done
check_eq "nomatch: no folder" no "$([ -e none ] && echo yes || echo no)"
check_exit "--tests=^suite (anchored)" 1 fgb --tests='^suite' -o none
check_exit "--tests='(' (a bad expression)" 1 fgb --tests='(' -o none
check_contains "bad expression: says so" err "error: .*'\(' is not a regular expression"

# ---- usage errors ------------------------------------------------------------
usage() { # WHAT PATTERN ARGS...
	local what=$1 pattern=$2
	shift 2
	check_exit "$what" 1 fgb "$@"
	check_contains "$what: says why" err "flamegraph-build: error: $pattern"
}
no_with='--tests writes a graph and folded stacks per test into one folder: it cannot be combined with'
usage "--tests --list" "$no_with --list" --tests --list
usage "--tests --list-names" "$no_with --list" --tests --list-names test
usage "--tests --perfdata-out" "$no_with --perfdata-out" --tests --perfdata-out x.data
usage "--tests --folded" "$no_with --folded" --tests --folded x.folded
usage "--tests --open" "$no_with --open" --tests --open
usage "--tests --format json" "$no_with --format" --tests --format json
usage "--benches --folded" "--benches writes .* cannot be combined with --folded" --benches --folded x.folded
usage "--tests -o -" "--tests writes a folder: -o - \(stdout\) cannot hold it" --tests -o -
touch afile
usage "--tests -o FILE" "afile is a file, and a suite writes a folder — give -o DIR a folder's name" --tests -o afile
usage "--tests -- ARGS" "--tests runs each test as its build system does: program arguments have no use" --tests -- table
usage "--tests and --test" "--test and --tests name two targets|--tests and --test name two targets" --tests --test table_suite
check_eq "usage errors: no default folder written" no "$([ -e flamegraph-tests ] && echo yes || echo no)"
check_exit "--tests --format svg is the default" 0 fgb --tests='^table_suite$' --format svg -o svgfmt -F 99
check_eq "--format svg: the graph" yes "$([ -s svgfmt/table_suite.svg ] && echo yes)"

# ---- a failing and a crashing test -------------------------------------------
# (a copy of its own: its first run configures it with the tests added)
cp -r "$FG_SRC/examples/cmake" bproj
rm -rf bproj/build
cat >>bproj/CMakeLists.txt <<'CMAKE'
add_test(NAME broken COMMAND unit_tests no-such-case)
add_test(NAME crashes COMMAND sh -c "kill -SEGV $$")
CMAKE
check_exit "--list-names test: the added tests" 0 flamegraph-build --manifest-path "$PWD/bproj" --list-names test
check_contains "--list-names: broken" out "^broken$"
check_exit "a failing test: exit 5" 5 flamegraph-build --manifest-path "$PWD/bproj" --tests='^(table_suite|broken|crashes)$' -o bad -F 299
check_contains "failing: the closing note counts them" err "note: 3 tests: 1 passed, 2 failed"
check_eq "failing: the passing test's graph is written" yes "$([ -s bad/table_suite.svg ] && echo yes)"
check_contains "failing: its stacks" bad/table_suite.folded "case_table;table_lookup_all"
summary bad/summary.json \
	'[e["name"] for e in d["tests"]] == ["table_suite", "broken", "crashes"]' \
	't["table_suite"]["status"] == "passed"' \
	't["broken"]["status"] == "failed" and t["broken"]["exit_code"] == 1 and t["broken"]["signal"] is None' \
	't["crashes"]["status"] == "crashed" and t["crashes"]["signal"] == 11 and t["crashes"]["exit_code"] is None' \
	'd["totals"]["passed"] == 1 and d["totals"]["failed"] == 2' \
	'd["interrupted"] is False'
check_contains "failing: marked in the index" bad/index.html '<tr class="bad"><td>(<a [^>]*>)?broken(</a>)?</td><td[^>]*><span class="st st-failed">failed</span></td><td class="num"[^>]*>1</td>'
check_contains "crashed: marked in the index" bad/index.html '<tr class="bad"><td>(<a [^>]*>)?crashes(</a>)?</td><td[^>]*><span class="st st-crashed">crashed</span></td><td class="num"[^>]*>signal 11</td>'
check_contains "passing: not marked" bad/index.html '<tr><td><a href="table_suite.svg">table_suite</a></td><td[^>]*><span class="st st-passed">passed'

# ---- interrupted -------------------------------------------------------------
# Ctrl-C once the first test's graph is written, while the second runs
# (all_units: several seconds of work)
# (a background job of a script starts with SIGINT ignored: the program
# gets it as a terminal would give it, by default)
python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
	flamegraph-build --manifest-path "$PWD/proj" --tests='^(table_suite|all_units)$' -o int -F 299 >int.out 2>int.err &
pid=$!
for ((i = 0; i < 600; i++)); do
	[ -s int/table_suite.svg ] && break
	sleep 0.1
done
check_eq "interrupt: the first graph appeared" yes "$([ -s int/table_suite.svg ] && echo yes)"
# and the second test's program runs (all_units: unit_tests without a
# filter), so the signal comes while a test is profiled
wait_for_process 'release/unit_tests $' 60 && pass || fail "interrupt: all_units never ran"
sleep 0.3
kill -INT $pid
rc=0
wait $pid || rc=$?
check_eq "interrupt: exit 130" 130 $rc
summary int/summary.json \
	'd["interrupted"] is True' \
	'd["tests"][0]["name"] == "table_suite" and d["tests"][0]["status"] == "passed"' \
	'd["tests"][0]["graph"] == "table_suite.svg"' \
	'all(e["name"] == "all_units" and e["status"] == "interrupted" for e in d["tests"][1:])'
check_contains "interrupt: the index says so" int/index.html 'class="stopped"[^>]*>Interrupted'
check_contains "interrupt: the index lists the test done" int/index.html '<a href="table_suite.svg">table_suite</a>'

# ---- the Meson example: tests and benchmarks ---------------------------------
cp -r "$FG_SRC/examples/meson" mproj
rm -rf mproj/build
fgm() { flamegraph-build --manifest-path "$PWD/mproj" "$@"; }
for kind in test bench; do
	check_exit "meson: --list-names $kind" 0 fgm --list-names $kind
	# test_counts and wordstat-benchmark are the programs that test() and
	# benchmark() run: run as Meson runs them, not once more on their own
	sort out | grep -vx -e test_counts -e wordstat-benchmark >m-$kind.txt
	flag=--tests
	[ $kind = test ] || flag=--benches
	rc=0
	fgm $flag -o m-$kind -F 299 >out 2>err || rc=$?
	# the registered test() and benchmark() entries pass
	summary m-$kind/summary.json \
		"sorted(t) == open('m-$kind.txt').read().split()" \
		"d['kind'] == '$kind'" \
		"all(e['status'] == 'passed' and e['graph'] is not None for e in d['tests'])" \
		"$rc == 0 and d['totals']['failed'] == 0"
done
summary m-test/summary.json \
	't["count_suite"]["status"] == "passed" and t["smoke"]["status"] == "passed"'
summary m-bench/summary.json 't["hash_speed"]["status"] == "passed"'
check_contains "meson: count_suite's graph, its program's functions" m-test/count_suite.folded "^test_counts;.*main;ws_count_"
check_contains "meson: hash_speed's graph, the hash under the benchmark" m-bench/hash_speed.folded ";main;ws_hash"
check_contains "meson: --benches' closing note" err "note: [0-9]+ bench(es)?: "
