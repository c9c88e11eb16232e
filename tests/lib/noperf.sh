# Sourced by the tests of the native recorder. noperf_path DIR: fills DIR
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
