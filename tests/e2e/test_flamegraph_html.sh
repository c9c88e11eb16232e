# --format html from the profiling programs, with the default recorder:
# flamegraph writes flamegraph.html by default, and flamegraph-build
# --tests writes NAME.html per test and all.html, linked from index.html
# and summary.json.
require_perf
cc -O2 -g -fno-omit-frame-pointer -o callgraph "$FG_SRC/examples/callgraph/callgraph.c"
check_exit "flamegraph --format html" 0 flamegraph --format html -F 499 --call-graph fp -- ./callgraph 20
check_contains "the default name" err "wrote flamegraph\.html"
check_contains "a page" flamegraph.html '^<!DOCTYPE html>$'
check_contains "the program's functions in it" flamegraph.html '"main"'
check_not_contains "no SVG" flamegraph.html '<svg'

cp -r "$FG_SRC/examples/cmake" proj
rm -rf proj/build
check_exit "--tests --format html" 0 flamegraph-build --manifest-path "$PWD/proj" --tests='^table_suite$' \
	--format html -o suite -F 299
check_eq "the test's page" yes "$([ -s suite/table_suite.html ] && echo yes)"
check_eq "no SVG" no "$([ -e suite/table_suite.svg ] && echo yes || echo no)"
check_contains "the merged page" suite/all.html '^<!DOCTYPE html>$'
check_contains "the index links the page" suite/index.html 'href="table_suite\.html"'
check_contains "summary.json names the page" suite/summary.json '"graph":[[:space:]]*"table_suite\.html"'
