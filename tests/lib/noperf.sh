# Sourced by the tests of the native recorder.
#
# native_recorder_or_skip: ends the test as skipped (77) where the native
# recorder cannot record: another architecture than x86_64, or a user
# that kernel.perf_event_paranoid keeps from perf events.
native_recorder_or_skip() {
	local paranoid
	[ "$(uname -m)" = x86_64 ] || { echo "the native recorder records x86_64 only"; exit 77; }
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 9)
	if [ "$(id -u)" != 0 ] && [ "$paranoid" -gt 1 ]; then
		echo "kernel.perf_event_paranoid is $paranoid: perf events are not allowed to this user"
		exit 77
	fi
}

# noperf_path DIR: fills DIR
# with links to every program on PATH but perf (and perf's helpers), so
# that PATH=DIR runs what a machine without perf has; fails the test when
# perf is still found there.
noperf_path() {
	local dir=$1 d f n
	mkdir -p "$dir"
	IFS=: read -ra dirs <<<"$PATH"
	for d in "${dirs[@]}"; do
		for f in "$d"/*; do
			n=${f##*/}
			case $n in perf | perf_* | perf-*) continue ;; esac
			[ -x "$f" ] && [ ! -e "$dir/$n" ] && ln -s "$f" "$dir/$n"
		done
	done
	if PATH=$dir command -v perf >/dev/null; then
		fail "perf is still on the test's PATH"
		return 1
	fi
}
