# flamegraph-collapse-perf reads perf.data itself: for frame-pointer
# recordings (perf record -g) of examples/callgraph, of a multi-threaded
# program of ours (tests/e2e/perfdata/threads.c: renamed threads, libc,
# system calls) and of a C++ one (tests/e2e/perfdata/templates.cpp:
# demangled template instances, clones, a lambda), the folded stacks of the native reader are those of
# `perf script | flamegraph-collapse-perf` on the same file, under the
# collapse options (--pid and --tid against `perf script -F +pid`, which
# prints the PID the native reader knows; --no-inline against `perf
# script --no-inline`). The share of sample weight with identical stacks
# is printed; it must be at least 99%, and every difference is listed.
# The same for dwarf call graphs (perf record --call-graph dwarf, the
# programs built without frame pointers), which the reader unwinds
# itself: identical stacks for at least 99% of the samples, with the
# inlined frames perf script lists and without them (--no-inline), also
# for stacks 24 KB deep (tests/e2e/perfdata/deep.c), whose unwinding
# reads more of each stack copy than the reader keeps in memory.
# Compressed recordings (perf record -z) and the pipe form (perf record
# -o - > FILE) are read natively too, with the same check, and so is a
# pipe-form stream on standard input (perf record -o - | ...). Recordings the reader does not support (here samples with
# counter values) go through perf script with a note; --perf-script
# forces that path.
# ctest: LABELS slow
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
cc -O2 -g -fno-omit-frame-pointer -o callgraph "$FG_SRC/examples/callgraph/callgraph.c"
cc -O2 -g -fno-omit-frame-pointer -pthread -o threads "$FG_SRC/tests/e2e/perfdata/threads.c"
if ! perf record -q --no-bpf-event -F 1999 -g -o cg.data -- ./callgraph 600 >/dev/null 2>record.err; then
	echo "perf cannot record here:"; cat record.err; exit 77
fi
check_exit "record threads" 0 perf record -q --no-bpf-event -F 1999 -g -o threads.data -- ./threads 600 3
recordings="cg threads"
if command -v c++ >/dev/null; then
	c++ -O2 -g -fno-omit-frame-pointer -o templates "$FG_SRC/tests/e2e/perfdata/templates.cpp"
	check_exit "record templates" 0 perf record -q --no-bpf-event -F 1999 -g -o cxx.data -- ./templates 400
	recordings="$recordings cxx"
fi

. "$FG_SRC/tests/lib/stacks.sh" # share, compare, thread_start_frame

# perf 6.12 demangles C names as if they were C++ type codes (examples/
# callgraph's a is "signed char", b "bool"): perf script prints the C
# programs' names as they are
c_names() { case $1 in *cxx*) ;; *) echo --no-demangle ;; esac; }
for rec in $recordings; do
	nd=$(c_names "$rec")
	compare "$rec" "$rec.data" "$nd" --
	compare "$rec-all-addrs" "$rec.data" "$nd" -- --all --addrs
	compare "$rec-pid" "$rec.data" "-F +pid $nd" -- --pid
	compare "$rec-tid-kernel" "$rec.data" "-F +pid $nd" -- --tid --kernel
	compare "$rec-no-inline" "$rec.data" "--no-inline $nd" -- --no-inline
done

# dwarf call graphs: -O2 -g as built by default (no frame pointers), a
# second each (dwarf recordings grow by some 40 MB a second); each one
# is compared, then removed
cc -O2 -g -o callgraph-dw "$FG_SRC/examples/callgraph/callgraph.c"
cc -O2 -g -pthread -o threads-dw "$FG_SRC/tests/e2e/perfdata/threads.c"
cc -O2 -g -o deep-dw "$FG_SRC/tests/e2e/perfdata/deep.c"
dwarf_runs="cg:./callgraph-dw:1000 threads:./threads-dw:1000:3 deep:./deep-dw:600"
if command -v c++ >/dev/null; then
	c++ -O2 -g -o templates-dw "$FG_SRC/tests/e2e/perfdata/templates.cpp"
	dwarf_runs="$dwarf_runs cxx:./templates-dw:1000"
fi
for run in $dwarf_runs; do
	IFS=: read -r name prog args <<<"$run"
	# shellcheck disable=SC2086
	check_exit "record $name, dwarf" 0 perf record -q --no-bpf-event -F 997 --call-graph dwarf,65528 -g \
		-o "dw-$name.data" -- "$prog" ${args//:/ }
	nd=$(c_names "$name")
	compare "dwarf-$name" "dw-$name.data" "$nd" --
	compare "dwarf-$name-all-addrs" "dw-$name.data" "$nd" -- --all --addrs
	compare "dwarf-$name-tid-kernel" "dw-$name.data" "-F +pid $nd" -- --tid --kernel
	compare "dwarf-$name-no-inline" "dw-$name.data" "--no-inline $nd" -- --no-inline
	[ "$name" = cg ] || rm -f "dw-$name.data"
done
check_contains "dwarf: main calls a" dwarf-cg.native "^callgraph-dw;.*main;outer;a [0-9]+$"
check_contains "dwarf: inlined frames" dwarf-threads.native ";hash_step;churn;mix [0-9]+$"
check_contains "dwarf: libc frames" dwarf-threads.native ";$(thread_start_frame);worker;"
# 24 KB of stack above the sampled frame: the part of each copy the
# reader reads only when unwinding asks for it
check_contains "dwarf: deep stacks, unwound to main" dwarf-deep.native \
	"^deep-dw;.*main(;descend){25};spin [0-9]+$"
if [ -e dwarf-cxx.native ]; then
	check_contains "dwarf: C++ inlined, demangled" dwarf-cxx.native \
		";main;work::churn<long>;std::map<long, long, .*>::operator\[\];"
fi
check_contains "callgraph: main calls a" cg.native "^callgraph;.*main;a [0-9]+$"
check_contains "threads: renamed threads" threads-tid-kernel.native "^worker-[0-9]-[0-9]+/[0-9]+;"
check_contains "threads: libc frames" threads.native ";$(thread_start_frame);"
if [ -e cxx.native ]; then
	check_contains "C++: demangled, no return type" cxx.native ";main;work::churn<long>[; ]"
fi

# --perf-script: the text path, whatever the input
# (perf script's own names, demangled as that perf does)
perf script -i cg.data 2>/dev/null | flamegraph-collapse-perf >cg.script
check_exit "--perf-script" 0 flamegraph-collapse-perf --perf-script cg.data
check_same_file "--perf-script: perf script's stacks" cg.script out

# --perf-script on a dwarf recording: perf script's unwinding
perf script -i dw-cg.data 2>/dev/null | flamegraph-collapse-perf >dwarf-cg.script
check_exit "dwarf: --perf-script" 0 flamegraph-collapse-perf --perf-script dw-cg.data
check_same_file "dwarf: --perf-script gives perf script's stacks" dwarf-cg.script out
rm -f dw-cg.data

# compressed records (perf record -z): read natively, frame-pointer and
# dwarf call graphs alike, with the stacks of perf script
check_exit "record -z" 0 perf record -q --no-bpf-event -z -F 1999 -g -o z.data -- ./threads 600 3
compare "z-threads" z.data "--no-demangle" --
compare "z-threads-tid-kernel" z.data "-F +pid --no-demangle" -- --tid --kernel
check_exit "record -z, dwarf" 0 perf record -q --no-bpf-event -z -F 997 --call-graph dwarf,65528 \
	-o zdw.data -- ./callgraph-dw 1000
compare "z-dwarf-cg" zdw.data "--no-demangle" --
compare "z-dwarf-cg-no-inline" zdw.data "--no-inline --no-demangle" -- --no-inline
check_contains "-z dwarf: main calls a" z-dwarf-cg.native "^callgraph-dw;.*main;outer;a [0-9]+$"
rm -f zdw.data

# the pipe form (perf record -o - > FILE): plain frame-pointer, and
# compressed dwarf call graphs
check_exit "record pipe" 0 perf record -q --no-bpf-event -F 1999 -g -o - -- ./threads 600 3
mv out pipe.data
compare "pipe-threads" pipe.data "--no-demangle" --
compare "pipe-threads-tid-kernel" pipe.data "-F +pid --no-demangle" -- --tid --kernel
check_exit "record pipe -z, dwarf" 0 perf record -q --no-bpf-event -z -F 997 --call-graph dwarf,65528 \
	-o - -- ./callgraph-dw 1000
mv out zpipe.data
compare "pipe-z-dwarf-cg" zpipe.data "--no-demangle" --
check_contains "pipe -z dwarf: main calls a" pipe-z-dwarf-cg.native "^callgraph-dw;.*main;outer;a [0-9]+$"
rm -f zpipe.data
# several events: each sample named as perf script names it
check_exit "record pipe, 2 events" 0 perf record -q --no-bpf-event -F 999 -g -e cpu-clock,task-clock -o - -- \
	./callgraph 300
mv out pipe2.data
compare "pipe-2-events" pipe2.data "--no-demangle" -- --event-filter task-clock

# a pipe-form stream on standard input (perf record -o - | ...), read as
# it comes: the same stacks as perf script gives on a copy of the stream
perf record -q --no-bpf-event -F 1999 -g -o - -- ./threads 600 3 2>record.err | tee stream.data |
	flamegraph-collapse-perf >stream.native 2>stream.err
check_exit "stdin: the copy reads as a file" 0 flamegraph-collapse-perf stream.data
check_same_file "stdin: the same stacks as the file" out stream.native
perf script --no-demangle -i stream.data 2>/dev/null | flamegraph-collapse-perf >stream.text
pct=$(share stream.text stream.native)
echo "stdin stream: identical stacks for $pct% of the sample weight ($(wc -l <stream.text) stacks)"
awk -v p="$pct" 'BEGIN { exit !(p >= 99) }' && pass || fail "stdin stream: only $pct% identical"
check_not_contains "stdin: no note, no error" stream.err "."
# compressed, and gzip on top (fg_input decompresses standard input)
perf record -q --no-bpf-event -z -F 999 -g -o - -- ./callgraph 300 2>record.err | tee zstream.data | gzip |
	flamegraph-collapse-perf >zstream.native 2>zstream.err
check_exit "stdin -z: the copy reads as a file" 0 flamegraph-collapse-perf zstream.data
check_same_file "stdin -z | gzip: the same stacks as the file" out zstream.native
# --perf-script cannot take a stream back from the reader: a clear error
if perf record -q --no-bpf-event -F 499 -g -o - -- ./callgraph 100 2>record.err |
	flamegraph-collapse-perf --perf-script >/dev/null 2>script.err; then
	fail "stdin --perf-script: no error"
else
	pass
fi
check_contains "stdin --perf-script: what to do" script.err "save it to a file"
# a redirected file is read as that file, the file form too
check_exit "stdin: a redirected file" 0 sh -c 'flamegraph-collapse-perf < threads.data'
mv out redirect.native
check_same_file "stdin: a redirected file as the file" threads.native redirect.native

# what the reader does not read goes through perf script, with a note
# (here samples that carry counter values: a group sampled by its leader)
if perf record -q --no-bpf-event -F 499 -g -e '{cpu-clock,task-clock}:S' -o read.data -- ./callgraph 200 \
	>/dev/null 2>&1; then
	check_exit "sample read: falls back" 0 flamegraph-collapse-perf read.data
	check_contains "sample read: a note says why" err "note: .*PERF_SAMPLE_READ.*perf script"
	check_exit "sample read: -q drops the notes" 0 flamegraph-collapse-perf -q read.data
	check_not_contains "sample read: -q" err "note"
fi

# a truncated recording: a clear error, with the offset
head -c 5000 threads.data >cut.data
check_exit "truncated" 1 flamegraph-collapse-perf cut.data
check_contains "truncated: where" err "cut.data: offset [0-9]+: "
rm -f ./*.data
