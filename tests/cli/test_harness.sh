# The shell-test harness itself: a test that checks nothing fails, and so
# does one whose SVGs cannot be checked because xmllint is missing.
runner=$FG_SRC/tests/lib/run-test.sh

cat >nocheck.sh <<'EOF'
echo "did some work, checked nothing"
EOF
check_exit "a test with no check fails" 1 bash "$runner" "$PWD/nocheck.sh"
check_contains "a test with no check: says so" err "made no check"

# its SVGs are checked, but that is not the test's own check
cat >svgonly.sh <<'EOF'
printf 'a;b 1\n' | flamegraph-render -o only.svg
EOF
check_exit "a test whose only checks are the SVG ones fails" 1 bash "$runner" "$PWD/svgonly.sh"
check_contains "SVG checks only: says so" err "made no check"

cat >onecheck.sh <<'EOF'
check_eq "one check" 1 1
printf 'a;b 1\n' | flamegraph-render -o one.svg
EOF
check_exit "a test with a check passes" 0 bash "$runner" "$PWD/onecheck.sh"
check_contains "a test with a check: counted, with its SVG" out "2 checks passed"

cat >failing.sh <<'EOF'
check_eq "a failing check" 1 2
EOF
check_exit "a failing check fails the test" 1 bash "$runner" "$PWD/failing.sh"

# a test that puts its own EXIT trap in place of the harness's would
# leave its folder behind: it fails
cat >trap.sh <<'EOF'
check_eq "one check" 1 1
trap 'echo own trap' EXIT
EOF
check_exit "a test that replaced the EXIT trap fails" 1 bash "$runner" "$PWD/trap.sh"
check_contains "replaced trap: says how to chain it" err "the test replaced run-test.sh's EXIT trap: chain it"

# a process the test started and left running fails it, and is ended;
# a process of another test (here, this one's) is none of its business
sleep 300 &
mine=$!
cat >leaves.sh <<'EOF'
check_eq "one check" 1 1
sleep 300 &
echo $! >"$OUTER/left.pid"
EOF
check_exit "a test that leaves a process behind fails" 1 env OUTER="$PWD" bash "$runner" "$PWD/leaves.sh"
check_contains "a process left: named" err "process left behind: [0-9]+ sleep 300"
left=$(cat left.pid)
# killed, it may stay a zombie for a moment until init reaps it (under
# load, CI once saw it there): gone or dead within 5 s
gone() { ! kill -0 "$1" 2>/dev/null || [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ]; }
for _ in $(seq 50); do gone "$left" && break; sleep 0.1; done
[ -n "$left" ] && gone "$left" && pass || fail "the process left behind ($left) still runs"
kill -0 "$mine" 2>/dev/null && pass || fail "another test's process was killed"
kill "$mine"
wait "$mine" 2>/dev/null || true

# without xmllint the SVG check fails rather than skipping: only the tools
# the runner needs on PATH
mkdir tools
for t in bash env mktemp dirname rm mkdir find head stat cat sed grep printf; do
	p=$(command -v "$t") && [ -x "$p" ] && ln -s "$p" "tools/$t"
done
check_exit "no xmllint: a test that wrote an SVG fails" 1 \
	env PATH="$PWD/tools" FG_BIN="$FG_BIN" bash "$runner" "$PWD/onecheck.sh"
check_contains "no xmllint: says what to install" err "xmllint not found: install libxml2-utils"

# a test that changed /dev/null fails; seen in a mount namespace of its
# own, where a regular file is bound over /dev/null (as root only)
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	cat >devnull.sh <<'EOT'
check_eq "one check" 1 1
EOT
	echo not a device >fake-null
	check_exit "a test after which /dev/null is no device fails" 1 \
		unshare -m sh -c 'mount --bind "$1" /dev/null && exec bash "$2" "$3"' - "$PWD/fake-null" "$runner" "$PWD/devnull.sh"
	check_contains "/dev/null changed: says so" err "/dev/null was changed: now regular file"
	check_eq "/dev/null here is still the device" "character special file 1,3 666" "$(stat -c '%F %t,%T %a' /dev/null)"
fi
