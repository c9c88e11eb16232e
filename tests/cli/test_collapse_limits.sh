# Limits against hostile input and output safety of the collapsers:
# 100 000-frame stacks, a 1 MB frame name, a line far over 16 MiB from a
# pipe (bounded memory), counts summing past 2^64, and -o naming a folder
# or one of the inputs.
good=$'app 100 1.0: 1 cycles:\n\t1 leaf (/bin/app)\n\t2 root (/bin/app)\n\n'

# --- 100 000-frame-deep stacks: whole, in order, no crash --------------------
awk 'BEGIN { print "app 1 1.0: 5 cycles:"; for (i = 99999; i >= 0; i--) printf "\t%x f%d (/bin/app)\n", i, i; print "" }' > deep.txt
printf '%s' "$good" >> deep.txt
check_exit "deep perf stack" 0 flamegraph-collapse-perf -n 2 deep.txt
check_eq "deep perf stack: 100 000 frames + comm" 100001 "$(awk -F';' '/ 5$/ { print NF }' out)"
check_contains "deep perf stack: root first" out '^app;f0;f1;f2;'
check_contains "deep perf stack: leaf last" out ';f99998;f99999 5$'
check_contains "deep perf stack: other stacks kept" out '^app;root;leaf 1$'
awk 'BEGIN { print "CPU ID FUNCTION:NAME"; print "0 1 :tick"; print ""; for (i = 99999; i >= 0; i--) printf "  prog`g%d+0x1\n", i; print "  3" }' > deep-dtrace.txt
check_exit "deep DTrace stack" 0 flamegraph-collapse-dtrace deep-dtrace.txt
check_eq "deep DTrace stack: 100 000 frames" 100000 "$(awk -F';' '{ print NF }' out)"
check_contains "deep DTrace stack: order" out '^prog`g0;prog`g1;.*;prog`g99999 3$'
check_exit "deep stack, guessed" 0 flamegraph-collapse-guess deep-dtrace.txt
check_eq "deep stack, guessed: same depth" 100000 "$(awk -F';' '{ print NF }' out)"

# --- a 1 MB frame name: cut to 64 KiB + marker, one warning -------------------
name=$(head -c 1000000 /dev/zero | tr '\0' 'n')
{ printf '%s' "$good"; printf 'app 100 1.0: 1 cycles:\n\t1 %s (/bin/app)\n\t2 root (/bin/app)\n\n' "$name"
  printf 'app 100 1.0: 1 cycles:\n\t1 %s (/bin/app)\n\t2 root (/bin/app)\n\n' "$name"; } > bigname.txt
check_exit "1 MB frame name" 0 flamegraph-collapse-perf bigname.txt
check_contains "1 MB frame name: good stack kept" out '^app;root;leaf 1$'
# "app;root;" + 65531 n + "[...] 2": the frame with its mark is 64 KiB
check_eq "1 MB frame name: cut to 64 KiB" 65547 "$(awk '/\[\.\.\.\]/ { print length($0) }' out)"
check_contains "1 MB frame name: marker" out '^app;root;n+\[\.\.\.\] 2$'
check_eq "1 MB frame name: one warning" 1 "$(grep -c 'warning' err)"
check_contains "1 MB frame name: says what and where" err 'warning: 2 frame names longer than 64 KiB .*first at input line 6 '
cp out bigname.folded
check_exit "1 MB frame name, -q" 0 flamegraph-collapse-perf -q bigname.txt
check_eq "-q: no warning" "" "$(cat err)"
# the renderer has the same cap and mark: it has nothing more to cut
check_exit "cut name renders" 0 flamegraph-render -o bigname.svg bigname.folded
check_not_contains "cut name renders: not cut again" err '64 KiB'

# --- a 200 MB line through a pipe: skipped, memory stays bounded --------------
{ printf '%s' "$good"; printf 'app 100 1.0: 1 cycles:\n\t1 '; head -c 200000000 /dev/zero | tr '\0' 'z'
  printf ' (/bin/app)\n\t2 root (/bin/app)\n\n%s' "$good"; } |
	/usr/bin/time -f '%M' -o rss flamegraph-collapse-perf -n 1 > out 2> err
check_eq "200 MB line: only the good stacks" "app;root;leaf 2" "$(cat out)"
check_contains "200 MB line: warned with its line" err 'warning: 1 lines longer than 16 MiB \(their stacks dropped\), first at input line 6 '
rss_kb=$(tail -1 rss)
if grep -q __asan_init "$(command -v flamegraph-collapse-perf)"; then
	pass # AddressSanitizer's shadow memory and quarantine make RSS meaningless
else
	[ "$rss_kb" -lt 80000 ] && pass || fail "200 MB line: peak RSS ${rss_kb} kB, expected < 80 MB (the line must not be buffered)"
fi
# a 20 MB header line from a file, DTrace too
{ printf '%s' "$good"; head -c 20000000 /dev/zero | tr '\0' 'h'; printf ' 1 1.0: 1 cycles:\n\t1 x (/bin/app)\n\n%s' "$good"; } > longhdr.txt
check_exit "20 MB header line" 0 flamegraph-collapse-perf longhdr.txt
check_eq "20 MB header line: event dropped, rest kept" "app;root;leaf 2" "$(cat out)"
{ printf '  m`a\n  1\n  m`'; head -c 20000000 /dev/zero | tr '\0' 'd'; printf '\n  m`b\n  5\n  m`a\n  2\n'; } > longdt.txt
check_exit "20 MB DTrace line" 0 flamegraph-collapse-dtrace longdt.txt
check_eq "20 MB DTrace line: its stack dropped" "m\`a 3" "$(cat out)"
check_contains "20 MB DTrace line: warned" err 'longer than 16 MiB.*line 3 '

# --- counts near 2^64 -------------------------------------------------------
big=9223372036854775808 # 2^63
printf 'app 1 1.0: %s cycles:\n\t1 main (/bin/app)\n\napp 1 1.0: %s cycles:\n\t1 main (/bin/app)\n\n%s' "$big" "$big" "$good" > huge-counts.txt
check_exit "2 x 2^63" 0 flamegraph-collapse-perf huge-counts.txt
check_contains "2 x 2^63: held at 2^64 - 1, not wrapped" out '^app;main 18446744073709551615$'
check_contains "2 x 2^63: other stack" out '^app;root;leaf 1$'
check_contains "2 x 2^63: message" err 'warning: 1 stacks whose counts sum past 2\^64 - 1'
printf 'app 1 1.0: 18446744073709551616 cycles:\n\t1 main (/bin/app)\n\n%s' "$good" > over.txt
check_exit "period of 2^64" 0 flamegraph-collapse-perf over.txt
check_eq "period of 2^64: event dropped, not counted as 1" "app;root;leaf 1" "$(cat out)"
check_contains "period of 2^64: message" err 'periods too large for 64 bits.*line 1 '
printf '  m`a\n  18446744073709551615\n  m`a\n  1\n' > dt-counts.txt
check_exit "DTrace 2^64 - 1 + 1" 0 flamegraph-collapse-dtrace dt-counts.txt
check_eq "DTrace 2^64 - 1 + 1: held" 'm`a 18446744073709551615' "$(cat out)"
# the saturated output is a valid folded file for the renderer
flamegraph-collapse-perf -q huge-counts.txt > sat.folded
check_exit "saturated counts render" 0 flamegraph-render -o sat.svg sat.folded

# --- -o naming a folder or an input -----------------------------------------
printf '%s' "$good" > in.txt
cp in.txt in.orig
mkdir outdir
check_exit "-o a directory" 1 flamegraph-collapse-perf -o outdir in.txt
check_contains "-o a directory: says so" err 'error: -o outdir is a directory — give a file name'
check_eq "-o a directory: nothing written into it" "" "$(ls -A outdir)"
check_exit "-o the input" 1 flamegraph-collapse-perf -o in.txt in.txt
check_contains "-o the input: says so" err 'error: -o in.txt is also an input \(in.txt\)'
check_same_file "-o the input: input untouched" in.orig in.txt
printf '%s' "$good" > other.txt
check_exit "-o the second input" 1 flamegraph-collapse-guess other.txt -o in.txt in.txt
check_contains "-o the second input: names it" err 'is also an input'
check_same_file "-o the second input: untouched" in.orig in.txt
ln in.txt hardlink.txt
check_exit "-o a hard link to the input" 1 flamegraph-collapse-perf -o hardlink.txt in.txt
check_same_file "-o a hard link: input untouched" in.orig in.txt
check_exit "-o the input given as stdin" 1 sh -c 'flamegraph-collapse-perf -o in.txt < in.txt'
check_contains "-o stdin: says so" err 'is also an input \(stdin\)'
check_same_file "-o stdin: input untouched" in.orig in.txt
check_exit "-o the input, DTrace" 1 flamegraph-collapse-dtrace -o in.txt in.txt
check_same_file "-o the input, DTrace: untouched" in.orig in.txt
check_exit "-o another file" 0 flamegraph-collapse-perf -o folded.txt in.txt
check_eq "-o another file: written" "app;root;leaf 1" "$(cat folded.txt)"

# --- a stack that never ends: 300 MB of frames without an empty line --------
# repeat LINE BYTES: LINE again and again, BYTES in all (yes gets SIGPIPE)
repeat() { yes "$1" | head -c "$2" || true; }
{ printf '%s' "$good"; printf 'app 100 1.0: 1 cycles:\n'; repeat $'\t1 frame_of_an_endless_stack (/bin/app)' 300000000
  printf '\n%s' "$good"; } |
	/usr/bin/time -f '%M' -o rss flamegraph-collapse-perf -n 2 > out 2> err
check_eq "endless stack: dropped, the rest kept" "app;root;leaf 2" "$(cat out)"
check_contains "endless stack: warned at its first line" err 'warning: 1 stacks of more than 64 MiB .*first at input line 5 '
rss_kb=$(tail -1 rss)
if grep -q __asan_init "$(command -v flamegraph-collapse-perf)"; then
	pass
else
	[ "$rss_kb" -lt 150000 ] && pass || fail "endless stack: peak RSS ${rss_kb} kB, expected < 150 MB (64 MiB cap)"
fi
# the same from a file (read through a memory map) and as DTrace
{ printf '%s' "$good"; printf 'app 100 1.0: 1 cycles:\n'; repeat $'\t1 frame_of_an_endless_stack (/bin/app)' 80000000
  printf '\n%s' "$good"; } > endless.txt
check_exit "endless stack in a file" 0 flamegraph-collapse-perf endless.txt
check_eq "endless stack in a file: the rest kept" "app;root;leaf 2" "$(cat out)"
check_contains "endless stack in a file: warned" err 'more than 64 MiB'
{ printf '  m`a\n  2\n'; repeat '  m`frame_of_a_stack_without_count' 80000000; printf '\n  4\n  m`b\n  1\n'; } > endless-dtrace.txt
check_exit "endless DTrace stack" 0 flamegraph-collapse-dtrace endless-dtrace.txt
check_eq "endless DTrace stack: the rest kept" $'m`a 2\nm`b 1' "$(cat out)"
check_contains "endless DTrace stack: warned at line 3" err 'more than 64 MiB .*line 3 '

# --- the default event type never comes from a line over the cap ---------
# A 17 MB header line naming "instructions" first: read from a file (memory
# mapped, the line whole) or from stdin (the line cut while read), the
# default event is the one of the first event that is kept, "cycles".
{ printf 'app 1 1.0: 1 '; head -c 17000000 /dev/zero | tr '\0' 'x'; printf ' instructions:\n\t1 a (/bin/app)\n\n'
  printf '%s' "$good" "$good"; } > longevent.txt
check_exit "long first header, file" 0 flamegraph-collapse-perf longevent.txt
check_eq "long first header, file: cycles kept" "app;root;leaf 2" "$(cat out)"
cp out from-file
check_exit "long first header, stdin" 0 sh -c 'flamegraph-collapse-perf < longevent.txt'
check_same_file "long first header: stdin = file" from-file out
