# flamegraph options, each checked by its effect with real perf:
# --pid, --perfdata re-rendering, --perfdata-out, -c, -F, -z,
# --post-process, --skip-after, --open, --no-inline, --call-graph fp.
# ctest: RESOURCE_LOCK cpu
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
cc -O2 -g -o callgraph "$FG_SRC/examples/callgraph/callgraph.c"

# --pid on a running workload: recording ends when it exits
./callgraph 2500 > /dev/null &
wpid=$!
sleep 0.3
check_exit "--pid" 0 flamegraph --pid "$wpid" -F 499 --format folded -o pid.folded
wstatus=0
wait "$wpid" || wstatus=$?
check_eq "--pid: the workload ran to its end" 0 "$wstatus"
check_contains "--pid captured the workload's stacks" pid.folded "main;outer;a [0-9]+$"

# --perfdata-out keeps the recording; --perfdata re-renders it
check_exit "--perfdata-out" 0 flamegraph --perfdata-out kept.data --folded first.folded -o first.svg -F 499 -- ./callgraph 600
[ -s kept.data ] && pass || fail "--perfdata-out did not keep kept.data"
check_exit "--perfdata re-render" 0 flamegraph --perfdata kept.data --format folded -o again.folded
check_same_file "--perfdata gives the same stacks" first.folded again.folded
check_exit "--perfdata with a title" 0 flamegraph --perfdata kept.data --title "Re-rendered graph" -o titled.svg
check_contains "--title reaches the SVG" titled.svg "Re-rendered graph"

# perf script text as --perfdata is collapsed directly: the stacks of
# --perf-script (perf's own unwinding, which may differ from the native
# reader's in a few stacks)
perf script -i kept.data > kept.txt 2>/dev/null
check_exit "--perfdata with perf script text" 0 flamegraph --perfdata kept.txt --format folded -o text.folded
check_exit "--perfdata --perf-script" 0 flamegraph --perfdata kept.data --perf-script --format folded \
	-o script.folded
check_same_file "text input gives perf script's stacks" script.folded text.folded

# -c passes custom perf record arguments (the event proves it)
check_exit "-c custom args" 0 flamegraph -c "record -e task-clock -F 299 --call-graph dwarf,16384" --perfdata-out custom.data --format folded -o custom.folded -- ./callgraph 500
perf evlist -i custom.data > events.txt 2>/dev/null
check_contains "-c event recorded" events.txt "task-clock"
check_contains "-c graph has stacks" custom.folded "main;outer;a [0-9]+$"

# -F changes the sample rate: 99 Hz takes far fewer samples than 1999 Hz
# (counted from "wrote FILE (N samples"; the stacks may weigh by period)
flamegraph -F 99 --call-graph fp --format folded -o low.folded -- ./callgraph 800 2> low.err
flamegraph -F 1999 --call-graph fp --format folded -o high.folded -- ./callgraph 800 2> high.err
low=$(sed -n 's/.*wrote low.folded (\([0-9]*\) samples.*/\1/p' low.err)
high=$(sed -n 's/.*wrote high.folded (\([0-9]*\) samples.*/\1/p' high.err)
[ "${high:-0}" -gt $((${low:-0} * 5)) ] && [ "${low:-0}" -gt 0 ] && pass ||
	fail "-F 1999 took ${high:-?} samples vs ${low:-?} at -F 99"

# -z compresses perf.data (perf built with zstd), the stacks stay
if perf version --build-options 2>/dev/null | grep -q 'zstd: \[ on'; then
	check_exit "-z" 0 flamegraph -z 3 --perfdata-out z.data --format folded -o z.folded -F 499 -- ./callgraph 500
	perf report --header-only -i z.data 2>/dev/null > zhdr.txt
	check_contains "-z: perf.data is compressed" zhdr.txt "compressed"
	check_contains "-z: stacks" z.folded "main;outer;a [0-9]+$"
else
	check_exit "-z passes through to perf" 0 flamegraph -v -z 3 --ignore-status --format folded -o z.folded -F 499 -- ./callgraph 300
fi

# --post-process transforms the stacks (argv split like a shell, no shell)
check_exit "--post-process" 0 flamegraph --post-process "sed -e 's/;outer;/;OUTER_RENAMED;/'" --folded post.folded -o post.svg -F 499 -- ./callgraph 500
check_contains "--post-process changed the folded stacks" post.folded "main;OUTER_RENAMED;a [0-9]+$"
check_not_contains "--post-process left no original frame" post.folded ";outer;"
check_contains "--post-process reaches the SVG" post.svg "OUTER_RENAMED"
check_exit "--post-process failing command" 1 flamegraph --post-process "false" -o pp-fail.svg -F 499 -- ./callgraph 300
check_contains "--post-process failure message" err "post-process command 'false' failed"
[ ! -e pp-fail.svg ] && pass || fail "a failed --post-process still wrote the graph"

# --skip-after drops the callers above a function
check_exit "--skip-after" 0 flamegraph --skip-after outer --format folded -o skip.folded -F 499 -- ./callgraph 500
check_contains "--skip-after: stacks start at outer" skip.folded "^([^;]*;)?outer;a [0-9]+$"
check_not_contains "--skip-after: no main above outer" skip.folded "main;outer"

# --open runs the opener from $BROWSER with the graph's path
cat > opener.sh <<'SH'
#!/bin/sh
echo "opened $1" > opened.txt
SH
chmod +x opener.sh
check_exit "--open" 0 env BROWSER="$PWD/opener.sh" "$FG_BIN/flamegraph" --open -o open.svg -F 499 -- ./callgraph 300
check_contains "--open called the opener" opened.txt "^opened open.svg$"

# --no-inline: no inlined frames natively, and passed on to perf script
check_exit "--no-inline" 0 flamegraph -v --no-inline --format folded -o noinl.folded -F 499 -- ./callgraph 300
check_contains "--no-inline still has stacks" noinl.folded "main;outer;a [0-9]+$"
check_exit "--no-inline --perf-script" 0 flamegraph -v --no-inline --perf-script --format folded \
	-o noinl2.folded -F 499 -- ./callgraph 300
check_contains "--no-inline passed to perf script" err "perf script -i .* --no-inline"

# --call-graph fp on a program built without frame pointers: the warning
check_exit "--call-graph fp" 0 flamegraph -v --call-graph fp --format folded -o fp.folded -F 499 -- ./callgraph 300
check_contains "fp recorded with --call-graph fp" err "perf record -F 499 --call-graph fp -g"
check_contains "fp warning with the fix" err "built without frame pointers.*-fno-omit-frame-pointer"
cc -O2 -g -fno-omit-frame-pointer -o callgraph-fp "$FG_SRC/examples/callgraph/callgraph.c"
check_exit "--call-graph fp with frame pointers" 0 flamegraph --call-graph fp --format folded -o fp2.folded -F 499 -- ./callgraph-fp 300
check_not_contains "no fp warning with -fno-omit-frame-pointer" err "frame pointers"
