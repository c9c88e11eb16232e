# inferno-flamegraph's option spellings against inferno's own SVGs of its
# option tests (flamegraph/options/): the same frames (svg-frames: name,
# fg:x, fg:w) from the same input and arguments.
conf=$FG_SHARED/conformance
frames=$FG_SHARED/tools/svg-frames
diffin=$conf/inferno/flamegraph/differential/perf-cycles-instructions-01-collapsed-all-diff.txt
vertx=$conf/flamegraph-pl/results/perf-vertx-stacks-01-collapsed-all.txt
java=$conf/flamegraph-pl/results/perf-java-stacks-01-collapsed-jit.txt
n=0
case_() { # EXPECTED INPUT ARGS...
	local want=$conf/inferno/flamegraph/options/$1.svg input=$2
	shift 2
	n=$((n + 1))
	check_exit "$* ($want)" 0 flamegraph-render -o "c$n.svg" "$@" "$input"
	"$frames" "$want" > "want$n"
	"$frames" "c$n.svg" > "got$n"
	[ -s "want$n" ] || fail "$want: no frames"
	check_same_file "$*: frames of $(basename "$want")" "want$n" "got$n"
}
case_ search_color "$diffin" --search-color 'rgb(125,125,125)'
check_contains "search colour" c1.svg 'fg_searchcolor = "rgb\(125,125,125\)"'
case_ stroke_color "$diffin" --stroke-color 'rgb(125,125,125)'
check_contains "stroke colour" c2.svg 'stroke: rgb\(125,125,125\)'
case_ uicolor_color "$diffin" --uicolor 'rgb(255,0,0)'
case_ count_name_simple "$diffin" --countname bytes
case_ name_type_simple "$diffin" --nametype 'Layer:'
case_ font_type_monospace "$diffin" --fonttype monospace
case_ colordiffusion "$vertx" --colordiffusion
case_ truncate-right "$java" --truncate-text-right --colors java
