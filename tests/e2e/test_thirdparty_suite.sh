# flamegraph-build --tests on a real CTest suite: Debian's cJSON (its
# tests built with ENABLE_CJSON_TEST), whose test programs carry the
# names of their CTest tests. Every test `ctest -N` lists in the build
# folder is profiled once (one summary entry each, the same names); each
# that ctest passes passes (or ran too briefly to be sampled), and each
# that passed has its graph and folded stacks in the folder.
# ctest: LABELS thirdparty
require_perf
if fetch_source cjson; then
	cp -r "$source_dir" cjson
	# the tests are over in about a millisecond: a high frequency, within
	# the kernel's limit (lowered on a loaded machine: read just before)
	limit=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	freq=$((limit < 20000 ? limit : 20000))
	rc=0
	flamegraph-build --manifest-path cjson -D ENABLE_CJSON_TEST=On --tests -o suite -F "$freq" >out 2>err || rc=$?
	check_eq "cjson --tests: every test passed or was too short to sample (exit 0)" 0 $rc
	bd=cjson/build/flamegraph/release
	(cd "$bd" && ctest -N) | sed -n 's/^ *Test *#[0-9]*: //p' | sort >ctest-names.txt
	check_eq "ctest -N lists at least 10 tests" yes "$([ "$(wc -l <ctest-names.txt)" -ge 10 ] && echo yes)"
	# what ctest itself says of each test
	here=$PWD
	(cd "$bd" && ctest --output-junit "$here/junit.xml" >/dev/null 2>&1) || true
	python3 - suite/summary.json ctest-names.txt junit.xml suite <<'PY' >summary.out 2>&1 && pass || { fail "cjson summary.json"; cat summary.out >&2; }
import json, os, sys
import xml.etree.ElementTree as ET
d = json.load(open(sys.argv[1]))
names = open(sys.argv[2]).read().split()
ran = {c.get("name"): c.get("status") for c in ET.parse(sys.argv[3]).iter("testcase")}
got = [e["name"] for e in d["tests"]]
assert sorted(got) == names, "summary %s, ctest -N %s" % (sorted(got), names)
assert d["totals"]["tests"] == len(names), d["totals"]
graphs = 0
for e in d["tests"]:
    if ran.get(e["name"]) == "run":
        assert e["status"] in ("passed", "no-samples"), e
    if e["status"] == "passed":
        assert e["exit_code"] == 0 and e["samples"] > 0, e
        for k in ("graph", "folded"):
            assert e[k] and os.path.getsize(os.path.join(sys.argv[4], e[k])) > 0, e
        graphs += 1
    else:
        assert e["graph"] is None, e
assert graphs >= 1, "no test was sampled at all"
print(len(names), "tests,", graphs, "graphs")
PY
	cat summary.out
	check_contains "cjson: parse_hex4's graph, its parser" suite/parse_hex4.folded "parse_hex4"
	check_contains "cjson: the index" suite/index.html "parse_hex4"
	cp suite/index.html "$FG_ARTIFACTS/thirdparty-cjson-suite.html" 2>/dev/null || true
fi
