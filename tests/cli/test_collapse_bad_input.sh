# Bad input never crashes the collapsers and never loses the good stacks
# around it; each kind of bad line gets one warning; a missing file is an
# error that names it.
good=$'app 100 1.0: 1 cycles:\n\t1 leaf (/bin/app)\n\t2 root (/bin/app)\n\n'

# binary garbage between good events
# (seeded, so every run sees the same bytes)
{ printf '%s' "$good"; python3 -c 'import random, sys; r = random.Random(20000); sys.stdout.buffer.write(bytes(r.getrandbits(8) for _ in range(20000)))'; printf '\n\n%s' "$good"; } > garbage.txt
check_exit "binary garbage" 0 flamegraph-collapse-perf garbage.txt
check_contains "binary garbage: good stacks kept" out '^app;root;leaf 2$'
n=$(grep -c 'warning' err || true)
[ "$n" -le 4 ] && pass || fail "binary garbage: $n warnings, expected at most one per kind"
check_not_contains "binary garbage: no NUL in output" out $'\x01'

# empty input, from a file and from stdin
: > empty.txt
check_exit "empty file" 0 flamegraph-collapse-perf empty.txt
check_eq "empty file: no output" "" "$(cat out)"
check_exit "empty stdin" 0 flamegraph-collapse-guess < empty.txt
check_eq "empty stdin: no output" "" "$(cat out)"

# no trailing newline: the last stack still counts
printf 'app 100 1.0: 1 cycles:\n\t1 leaf (/bin/app)\n\t2 root (/bin/app)' > nonl.txt
check_exit "no trailing newline" 0 flamegraph-collapse-perf nonl.txt
check_eq "no trailing newline: last stack" "app;root;leaf 1" "$(cat out)"
printf 'h\n\n  mod`leaf\n  mod`root\n  7' > nonl-dtrace.txt
check_exit "dtrace no trailing newline" 0 flamegraph-collapse-dtrace nonl-dtrace.txt
check_eq "dtrace no trailing newline: last stack" 'mod`root;mod`leaf 7' "$(cat out)"

# a 10 MB line: a garbage header and a huge symbol
{ printf '%s' "$good"; head -c 10000000 /dev/zero | tr '\0' 'x'; printf '\n\n%s' "$good"
  printf 'app 100 1.0: 1 cycles:\n\t1 '; head -c 10000000 /dev/zero | tr '\0' 'y'; printf ' (/bin/app)\n\n'; } > long.txt
check_exit "10 MB line" 0 flamegraph-collapse-perf -n 2 long.txt
check_contains "10 MB line: good stacks kept" out '^app;root;leaf 2$'
# "app;" + 64 KiB - 5 of the symbol + "[...] 1"
check_eq "10 MB line: huge symbol cut to 64 KiB" 65542 "$(awk '/^app;yyyy+\[\.\.\.\] 1$/ { print length($0) }' out)"
check_contains "10 MB line: cut symbol warned" err 'frame names longer than 64 KiB'
check_contains "10 MB line: warned" err 'event header'

# invalid UTF-8: bytes replaced, stack kept, one warning for many lines
{ for i in 1 2 3; do printf 'app 100 1.0: 1 cycles:\n\t1 bad\xff\xfe%s (/bin/app)\n\t2 root (/bin/app)\n\n' "$i"; done; } > utf8.txt
check_exit "invalid UTF-8" 0 flamegraph-collapse-perf utf8.txt
check_contains "invalid UTF-8: replaced" out $'^app;root;bad\xef\xbf\xbd\xef\xbf\xbd1 1$'
check_eq "invalid UTF-8: one warning" 1 "$(grep -c 'invalid UTF-8' err)"
check_contains "invalid UTF-8: count and first line" err '3 lines with invalid UTF-8.*line 2 '
iconv -f UTF-8 -t UTF-8 out > /dev/null && pass || fail "invalid UTF-8: output is not valid UTF-8"

# truncated stacks: cut mid-line, stack lines without module, dtrace without count
printf 'app 100 1.0: 1 cycles:\n\t1 leaf (/bin/app)\n\tbroken\n\tbroken too\n\t2 root (/bin/app)\n\napp 100 1.0: 1 cycles:\n\t3 mid (/bin/ap' > trunc.txt
check_exit "truncated stacks" 0 flamegraph-collapse-perf trunc.txt
check_contains "truncated: good frames kept" out '^app;root;leaf 1$'
check_eq "truncated: one warning for two bad lines" 1 "$(grep -c 'stack lines' err)"
check_contains "truncated: count" err '2 perf stack lines'
printf 'h\n\n  a`x\n  a`y\n  4\n\n  a`z\n' > trunc-dtrace.txt
check_exit "dtrace truncated" 0 flamegraph-collapse-dtrace trunc-dtrace.txt
check_eq "dtrace truncated: complete stack kept" 'a`y;a`x 4' "$(cat out)"
check_contains "dtrace truncated: warned" err 'without a count'
# dtrace count lines that are no whole number: the stack is dropped and
# warned about once (as a count too large for 64 bits is), the others kept
printf 'h\n\n  a`x\n  4\n\n  a`y\n  1.5\n\n  a`z\n  -3\n\n  a`w\n  2\n' > badcount-dtrace.txt
check_exit "dtrace bad count" 0 flamegraph-collapse-dtrace badcount-dtrace.txt
check_eq "dtrace bad count: good stacks kept" $'a`w 2\na`x 4' "$(cat out)"
check_eq "dtrace bad count: one warning" 1 "$(grep -c 'not a whole number' err)"
check_contains "dtrace bad count: count and first line" err '2 DTrace stacks whose count line is not a whole number.*line 7 '
check_exit "guess, dtrace bad count" 0 flamegraph-collapse-guess badcount-dtrace.txt
check_contains "guess, dtrace bad count: warned" err 'not a whole number'

# missing input file: exit 1, the message names the file
check_exit "missing file" 1 flamegraph-collapse-perf good-but-missing.txt
check_contains "missing file: named" err 'flamegraph-collapse-perf: error: .*good-but-missing.txt'
check_exit "missing second file" 1 flamegraph-collapse-guess empty.txt nope.txt
check_contains "missing second file: named" err 'nope.txt'

# not a known format at all
head -c 3000 /dev/urandom | base64 > random.txt
check_exit "guess on unknown text" 1 flamegraph-collapse-guess random.txt
check_contains "guess: says what to do" err 'none of perf script, DTrace, .* name it with the collapser for it \(flamegraph-collapse-FORMAT\)'

# binary data is not guessed as any format
head -c 100000 /dev/urandom > random.bin
check_exit "guess on binary data" 1 flamegraph-collapse-guess random.bin
check_contains "guess on binary: says what" err 'cannot tell the input format'
# folded stacks: told what to do with them
printf 'main;a 3\nmain;b 2\n' > folded.txt
check_exit "guess on folded stacks" 1 flamegraph-collapse-guess folded.txt
check_contains "guess on folded: says so" err 'folded stacks already: render them, or fold their recursion with flamegraph-collapse-recursive'

# bad option values
check_exit "bad --nthreads" 1 flamegraph-collapse-perf -n -3 empty.txt
check_contains "bad --nthreads: message" err 'nthreads'

# write errors say why
printf 'app 1 1.0: 1 cycles:\n\t1 leaf (/bin/app)\n\t2 root (/bin/app)\n\n' > good.txt
check_exit "collapse to a full disk" 1 sh -c 'flamegraph-collapse-perf good.txt > /dev/full'
check_contains "collapse to a full disk: says why" err 'No space left on device'
check_exit "collapse -o a full disk" 1 flamegraph-collapse-perf -o /dev/full good.txt
check_contains "collapse -o a full disk: says why" err 'No space left on device'
