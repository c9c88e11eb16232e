# Every option that names an output file, of every program, given what it
# must not damage: /dev/null, a FIFO, a symbolic link, one of its inputs
# (by the same path, a hard link, another spelling, stdin, and stdin where
# /dev has no stdin) and a file on another file system. Afterwards
# /dev/null is still the device 1,3 with mode 0666, the FIFO a FIFO, the
# link a link, the input intact. Needs root: mknod, mount, and a
# careless writer is only dangerous to /dev/null as root.
[ "$(id -u)" = 0 ] || { echo "skipped: needs root (it mounts a tmpfs and checks /dev/null)"; exit 77; }
require_perf
cc -O2 -g -fno-omit-frame-pointer -o callgraph "$FG_SRC/examples/callgraph/callgraph.c"

# the tmpfs is unmounted on any exit, after run-test.sh's trap took the
# test's status and before it removes the folder
mkdir mnt
case $(trap -p EXIT) in
*'rc=$?;'*) eval "$(trap -p EXIT | sed 's|rc=\$?;|rc=$?; umount "$TMPDIR/mnt" 2>/dev/null;|')" ;;
*) trap 'umount "$TMPDIR/mnt" 2>/dev/null' EXIT ;;
esac
mount -t tmpfs -o size=1g tmpfs mnt

# check_devnull WHAT: /dev/null is still the device, 0666; a damaged one
# is put back at once, so that the checks after this one still mean
# something
check_devnull() {
	local now
	now=$(stat -c '%F %t,%T %a' /dev/null)
	if [ "$now" = "character special file 1,3 666" ]; then pass; else
		fail "$1: /dev/null is now: $now"
		rm -f /dev/null
		mknod -m 666 /dev/null c 1 3
	fi
}

# with_fifos N CMD...: runs CMD (stdout -> out, stderr -> err, status in
# $rc) while a cat reads each of the FIFOs fifo1..fifoN into fifoK.read;
# the cats are reaped (one the program never opened is ended)
with_fifos() {
	local n=$1 k pids=() i
	shift
	for ((k = 1; k <= n; k++)); do
		rm -f "fifo$k" "fifo$k.read"
		mkfifo "fifo$k"
		cat "fifo$k" >"fifo$k.read" &
		pids+=($!)
	done
	rc=0
	"$@" >out 2>err || rc=$?
	for ((i = 0; i < 20; i++)); do
		kill -0 "${pids[@]}" 2>/dev/null || break
		sleep 0.1
	done
	kill "${pids[@]}" 2>/dev/null || true
	wait "${pids[@]}" 2>/dev/null || true
}

# check_fifos WHAT N: each FIFO is still one, and was written
check_fifos() {
	local k
	for ((k = 1; k <= $2; k++)); do
		[ -p "fifo$k" ] && pass || fail "$1: fifo$k is now: $(stat -c %F "fifo$k" 2>&1)"
		[ -s "fifo$k.read" ] && pass || fail "$1: nothing was written into fifo$k"
	done
	check_eq "$1: exit status" 0 "$rc"
	[ "$rc" = 0 ] || sed 's/^/    err| /' err | head -5 >&2
}

echo old >old.txt
# fresh_links N: linkK -> target.K, each target an old file of mode 0640
fresh_links() {
	local k
	for ((k = 1; k <= $1; k++)); do
		rm -f "link$k" "target.$k"
		echo old >"target.$k"
		chmod 640 "target.$k"
		ln -s "target.$k" "link$k"
	done
}

# check_links WHAT N: each link still one, its target written, its mode kept
check_links() {
	local k
	for ((k = 1; k <= $2; k++)); do
		[ -L "link$k" ] && pass || fail "$1: link$k is no longer a link: $(stat -c %F "link$k")"
		! cmp -s old.txt "target.$k" && [ -s "target.$k" ] && pass ||
			fail "$1: link$k's target was not written"
		check_eq "$1: link$k's target keeps its mode" 640 "$(stat -c %a "target.$k")"
	done
}

# check_input_refused WHAT FILE CMD...: CMD must refuse (an output that
# is one of its inputs) and leave FILE as it was
check_input_refused() {
	local what=$1 file=$2
	shift 2
	cp "$file" "$file.orig"
	rc=0
	"$@" >out 2>err || rc=$?
	[ "$rc" != 0 ] && pass || fail "$what: accepted ($*)"
	check_contains "$what: says why" err "is (also an input|both)"
	check_same_file "$what: the input is intact" "$file.orig" "$file"
	check_devnull "$what"
}

# the recording every re-rendering reads
check_exit "the recording" 0 flamegraph -F 499 --perfdata-out rec.data -o rec.svg -- ./callgraph 150
printf 'main;a 3\nmain;b 2\n' >in.folded
printf 'main;a 1\nmain;b 2\n' >before.folded
mkdir sub

# --- flamegraph-render: -o, --palette-map -----------------------------
r() { flamegraph-render "$@"; }
check_exit "render -o /dev/null" 0 r in.folded -o /dev/null
check_devnull "render -o /dev/null"
echo 'main->rgb(1,2,3)' >pal.map
check_exit "render --palette-map /dev/null" 0 r --palette-map /dev/null in.folded -o p.svg
check_devnull "render --palette-map /dev/null"
with_fifos 1 r in.folded -o fifo1
check_fifos "render -o FIFO" 1
fresh_links 2
echo 'main->rgb(1,2,3)' >target.2
check_exit "render -o LINK --palette-map LINK" 0 r in.folded -o link1 --palette-map link2
check_links "render -o LINK --palette-map LINK" 2
check_exit "render -o (tmpfs) --palette-map (tmpfs)" 0 r in.folded -o mnt/r.svg --palette-map mnt/pal.map
check_contains "render onto a tmpfs: written" mnt/r.svg "<svg"
check_contains "render onto a tmpfs: the palette written" mnt/pal.map "rgb"
ln in.folded in.hard
check_input_refused "render -o INPUT" in.folded r in.folded -o in.folded
check_input_refused "render -o HARDLINK" in.folded r in.folded -o in.hard
check_input_refused "render -o ./INPUT vs sub/../INPUT" in.folded r ./in.folded -o sub/../in.folded
check_input_refused "render -o STDIN" in.folded r -o in.folded <in.folded
# a minimal system's /dev may have no stdin link: fstat(0) still tells
# (in a mount namespace of its own, where it can be had: not in a chroot,
# whose root is no mount point to make private)
if unshare -m true 2>/dev/null; then
	check_input_refused "render -o STDIN, no /dev/stdin" in.folded \
		unshare -m sh -c 'mount -t tmpfs tmpfs /dev && mknod -m 666 /dev/null c 1 3 && exec flamegraph-render -o in.folded' <in.folded
else
	echo "no mount namespace here: the check without /dev/stdin is left out"
fi

# --- flamegraph-diff-folded: -o, --report-out -------------------------
d() { flamegraph-diff-folded --fail-above 1000 "$@"; }
check_exit "diff -o /dev/null --report-out /dev/null" 0 d before.folded in.folded -o /dev/null --report-out /dev/null
check_devnull "diff -o /dev/null --report-out /dev/null"
with_fifos 2 d before.folded in.folded -o fifo1 --report-out fifo2
check_fifos "diff -o FIFO --report-out FIFO" 2
fresh_links 2
check_exit "diff -o LINK --report-out LINK" 0 d before.folded in.folded -o link1 --report-out link2
check_links "diff -o LINK --report-out LINK" 2
check_exit "diff onto a tmpfs" 0 d before.folded in.folded -o mnt/d.folded --report-out mnt/d.txt
check_contains "diff onto a tmpfs: written" mnt/d.folded "main;a 1 3"
for opt in -o --report-out; do
	check_input_refused "diff $opt INPUT" in.folded d before.folded in.folded $opt in.folded
	check_contains "diff $opt INPUT: the option is named" err "error: $opt in.folded is also an input"
	check_input_refused "diff $opt HARDLINK" in.folded d before.folded in.folded $opt in.hard
	check_input_refused "diff $opt sub/../INPUT" in.folded d before.folded ./in.folded $opt sub/../in.folded
	check_input_refused "diff $opt STDIN" in.folded d before.folded - $opt in.folded <in.folded
done

# --- the collapsers: -o ------------------------------------------------
perf script -i rec.data >rec.txt 2>/dev/null
for c in perf dtrace ghcprof guess recursive sample vsprof vtune xctrace; do
	col=flamegraph-collapse-$c
	# its own kind of input where the fuzz corpus has a seed
	in=rec.txt
	for seed in "$FG_SRC"/tests/fuzz/corpus/collapse_$c/seed-*; do
		# (vtune's seed ends in a bad line on purpose)
		[ -f "$seed" ] && sed '/,x,/d' "$seed" >in.$c && in=in.$c
		break
	done
	check_exit "$c -o /dev/null" 0 $col $in -o /dev/null
	check_devnull "$c -o /dev/null"
	# (a format that finds nothing in perf's text writes an empty file)
	printf 'main;a 1\n' >fifo1.read
	with_fifos 1 $col $in -o fifo1
	[ -p fifo1 ] && pass || fail "$c -o FIFO: fifo1 is now: $(stat -c %F fifo1)"
	check_eq "$c -o FIFO: exit status" 0 "$rc"
	fresh_links 1
	check_exit "$c -o LINK" 0 $col $in -o link1
	[ -L link1 ] && pass || fail "$c -o LINK: the link is gone"
	! cmp -s old.txt target.1 && pass || fail "$c -o LINK: the target was not written"
	check_exit "$c onto a tmpfs" 0 $col $in -o mnt/c.$c
	[ -f mnt/c.$c ] && pass || fail "$c onto a tmpfs: not written"
	ln -f $in in.hard2
	check_input_refused "$c -o INPUT" $in $col $in -o $in
	check_input_refused "$c -o HARDLINK" $in $col $in -o in.hard2
	check_input_refused "$c -o sub/../INPUT" $in $col ./$in -o sub/../$in
	check_input_refused "$c -o STDIN" $in $col -o $in <$in
done

# --- flamegraph and flamegraph-build re-rendering a recording: -o, --folded
fg() { flamegraph --perfdata rec.data "$@"; }
fb() { flamegraph-build --manifest-path mk --perfdata rec.data "$@"; }
cp -r "$FG_SRC/examples/make" mk
rm -rf mk/build mk/compile_commands.json
for p in fg fb; do
	for fmt in svg folded json pprof; do
		check_exit "$p --format $fmt -o /dev/null --folded /dev/null" 0 $p --format $fmt -o /dev/null --folded /dev/null
		check_devnull "$p --format $fmt -o /dev/null --folded /dev/null"
	done
	with_fifos 2 $p -o fifo1 --folded fifo2
	check_fifos "$p -o FIFO --folded FIFO" 2
	fresh_links 2
	check_exit "$p -o LINK --folded LINK" 0 $p -o link1 --folded link2
	check_links "$p -o LINK --folded LINK" 2
	check_exit "$p onto a tmpfs" 0 $p --format pprof -o mnt/$p.pb.gz --folded mnt/$p.folded
	check_contains "$p onto a tmpfs: written" mnt/$p.folded "outer"
	ln -f rec.data rec.hard
	for opt in -o --folded; do
		check_input_refused "$p $opt INPUT" rec.data $p $opt rec.data
		check_input_refused "$p $opt HARDLINK" rec.data $p $opt rec.hard
		check_input_refused "$p $opt sub/../INPUT" rec.data $p $opt sub/../rec.data
	done
done

# --- recordings: --perfdata-out, -o, --folded, all at once ------------
cp callgraph mk/
rec() { flamegraph -F 499 "$@" -- ./callgraph 100; }
for p in rec; do
	check_exit "$p --perfdata-out /dev/null" 0 $p --perfdata-out /dev/null -o g.svg
	check_devnull "$p --perfdata-out /dev/null"
	check_exit "$p --no-stream -o /dev/null --folded /dev/null" 0 $p --no-stream --format pprof -o /dev/null --folded /dev/null
	check_devnull "$p --no-stream -o /dev/null --folded /dev/null"
	with_fifos 3 $p -o fifo1 --folded fifo2 --perfdata-out fifo3
	check_fifos "$p: all to FIFOs" 3
	fresh_links 3
	check_exit "$p: all to links" 0 $p -o link1 --folded link2 --perfdata-out link3
	check_links "$p: all to links" 3
	check_exit "$p: all onto a tmpfs" 0 $p -o mnt/g.svg --folded mnt/g.folded --perfdata-out mnt/g.data
	check_exit "$p: the recording kept on the tmpfs reads back" 0 flamegraph --perfdata mnt/g.data --format folded -o back.folded
	check_contains "$p: the recording kept on the tmpfs" back.folded "outer"
done
check_exit "flamegraph-build: all to /dev/null" 0 \
	flamegraph-build --manifest-path mk --bin primes -F 499 -o /dev/null --folded /dev/null --perfdata-out /dev/null -- 1
check_devnull "flamegraph-build: all to /dev/null"
fresh_links 1
check_exit "flamegraph-build --perfdata-out LINK" 0 flamegraph-build --manifest-path mk --bin primes -F 499 -o b.svg --perfdata-out link1 -- 1
check_links "flamegraph-build --perfdata-out LINK" 1

# --- flamegraph-build --compare: -o, --report-out, --compare-outputs --
# (HEAD against the working tree: the same code, the outputs are what is
# looked at)
cp -r "$FG_SRC/examples/make" gp
rm -rf gp/build gp/compile_commands.json
git -C gp init -q
git -C gp add .
git -C gp -c user.email=t@example.com -c user.name=t commit -qm base
fbc() { flamegraph-build --manifest-path gp --bin primes -F 499 --compare HEAD "$@" -- 1; }
check_exit "--compare -o /dev/null --report-out /dev/null" 0 fbc -o /dev/null --report-out /dev/null
check_devnull "--compare -o /dev/null --report-out /dev/null"
with_fifos 2 fbc -o fifo1 --report-out fifo2
check_fifos "--compare -o FIFO --report-out FIFO" 2
fresh_links 2
check_exit "--compare -o LINK --report-out LINK --compare-outputs" 0 fbc -o link1 --report-out link2 --compare-outputs
check_links "--compare -o LINK --report-out LINK --compare-outputs" 2
check_contains "--compare --report-out LINK: the table" target.2 "^function +before +after"
# the plain graphs are named after the name given, beside it
for side in before after; do
	check_contains "--compare-outputs -o LINK: link1.$side.svg" link1.$side.svg "<svg"
done
check_exit "--compare onto a tmpfs" 0 fbc -o mnt/c.svg --report-out mnt/c.txt --compare-outputs
for f in c.svg c.txt c.before.svg c.after.svg; do
	[ -s mnt/$f ] && pass || fail "--compare onto a tmpfs: mnt/$f not written"
done
# the plain graphs of a device or FIFO would be /dev/null.before.svg:
# refused before anything runs
check_exit "--compare-outputs -o /dev/null: refused" 1 fbc -o /dev/null --compare-outputs
check_contains "--compare-outputs -o /dev/null: says why" err \
	"error: --compare-outputs writes the plain graphs beside the output file, named after it, and /dev/null is a device or FIFO — give -o a file name, or drop --compare-outputs"
check_eq "--compare-outputs -o /dev/null: nothing made in /dev" "" "$(ls /dev | grep '^null\.')"
check_not_contains "--compare-outputs -o /dev/null: nothing was profiled" err "profiling"
check_devnull "--compare-outputs -o /dev/null"
rm -f fifo1
mkfifo fifo1
# (a writer that opened the FIFO would wait for a reader: timeout ends it)
check_exit "--compare-outputs -o FIFO: refused" 1 timeout 60 flamegraph-build --manifest-path gp \
	--bin primes --compare HEAD -o fifo1 --compare-outputs -- 1
check_contains "--compare-outputs -o FIFO: says why" err "fifo1 is a device or FIFO"
check_eq "--compare-outputs -o FIFO: no plain graphs" "" "$(ls | grep -E '^fifo1\.(before|after)')"
[ -p fifo1 ] && pass || fail "--compare-outputs -o FIFO: fifo1 is now: $(stat -c %F fifo1)"
check_exit "--compare --report-out into a missing folder: refused" 1 fbc -o c.svg --report-out nowhere/r.txt
check_contains "--compare --report-out into a missing folder: before the work" err "its folder nowhere does not exist"
check_not_contains "--compare --report-out into a missing folder: nothing was profiled" err "profiling"

# --- allocation graphs: -o, and --perfdata-out (a folder) -------------
cc -O2 -g -fno-omit-frame-pointer -pthread -o counted "$FG_SRC/tests/e2e/alloc/counted.c"
check_exit "--alloc -o /dev/null" 0 flamegraph --alloc --format pprof -o /dev/null -- ./counted 50
check_devnull "--alloc -o /dev/null"
check_exit "--alloc --perfdata-out /dev/null: refused" 1 flamegraph --alloc --perfdata-out /dev/null -o a.svg -- ./counted 50
check_devnull "--alloc --perfdata-out /dev/null"
mkdir allocs
ln -s allocs allocs.link
check_exit "--alloc --perfdata-out LINK to a folder" 0 flamegraph --alloc --perfdata-out allocs.link -o a.svg -- ./counted 50
[ -L allocs.link ] && pass || fail "--alloc --perfdata-out LINK: the link is gone"
ls allocs | grep -q '^alloc\.' && pass || fail "--alloc --perfdata-out LINK: nothing kept in the folder"
check_exit "--alloc --perfdata-out onto a tmpfs" 0 flamegraph --alloc --perfdata-out mnt/allocs -o a.svg -- ./counted 50
ls mnt/allocs | grep -q '^alloc\.' && pass || fail "--alloc --perfdata-out onto a tmpfs: nothing kept"

# --- what is refused, and how it is said ------------------------------
check_exit "-o into a missing folder" 1 flamegraph-render in.folded -o nowhere/x.svg
check_contains "-o into a missing folder: says so" err "error: cannot write nowhere/x.svg: its folder nowhere does not exist — create the folder first or give another path"
check_exit "--perfdata-out into a missing folder" 1 rec --perfdata-out nowhere/x.data -o x.svg
check_contains "--perfdata-out into a missing folder: says so" err "its folder nowhere does not exist"
check_exit "-o a folder" 1 flamegraph-render in.folded -o sub
check_contains "-o a folder: says so" err "error: sub is a directory — give a file name for the output"
check_devnull "at the end"
