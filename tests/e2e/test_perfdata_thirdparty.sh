# flamegraph-collapse-perf reads perf.data itself; here its folded stacks
# are compared with those of `perf script | flamegraph-collapse-perf` on
# recordings of real programs built from Debian source packages (fetched
# and cached by tests/lib/fetch-source.sh), each recorded once with frame
# pointers (perf record -g, built with -fno-omit-frame-pointer) and once
# with dwarf call graphs (--call-graph dwarf, built without them):
#   - lz4 (its CLI, compiled with one cc command): lz4 -9 compressing a
#     generated text of some 45 MB, about a second of LZ4HC;
#   - rapidjson's example filterkeydom (C++, one g++ command): a JSON of
#     some 45 MB parsed through its templated SAX filter into a Document
#     and written out again: template instances of the library and of
#     the example, std::stack, much inlining;
#   - pv (./configure && make): pv -C -B 512 copies /dev/zero to
#     /dev/null with read(2)/write(2) of 512 bytes, plus its select(2)
#     and alarm(2) per block: most of its time is in the kernel, whose
#     frames both sides must show (--kernel: `_[k]`).
# As in test_perfdata_native.sh, the share of sample weight with identical
# stacks is printed and must be at least 99%; every differing stack is
# listed, and the differences are summed up by kind: stacks to which
# perf adds an `[unknown]` root frame, and stacks that differ only in
# the name of a frame or two (the frames are named as each side names
# them, the kind says which names). The kinds are printed to explain a
# failure, never to excuse one: the 99% rule is on the plain comparison.
# The native output must also hold the program's own functions.
# Recordings are about a second each (dwarf ones at 997 Hz, some 40 MB)
# and are removed once compared. Skipped (77) when perf cannot record; a
# source package that cannot be fetched fails the test, but one the
# archive does not serve at all, which skips its part (fetch_source).
# ctest: LABELS thirdparty
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
if ! perf record -q --no-bpf-event -o probe.data -- true >/dev/null 2>record.err; then
	echo "perf cannot record here:"; cat record.err; exit 77
fi
rm -f probe.data
# kernel frames are recorded for root, or when perf_event_paranoid allows
kernel_frames=yes
if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)" -gt 1 ]; then
	kernel_frames=no
	echo "note: not root and perf_event_paranoid > 1: kernel frames are not checked"
fi


. "$FG_SRC/tests/lib/stacks.sh" # share, compare
. "$FG_SRC/tests/lib/build-cache.sh" # build_key, build_restore, build_keep

# show_differences EXPECTED ACTUAL (for compare): lists every stack of EXPECTED (perf
# script's) that ACTUAL (native) lacks or has with another weight, and
# every one of ACTUAL that EXPECTED lacks; a stack of ACTUAL that is one
# of EXPECTED's but for an `[unknown]` frame right under the command
# (on EXPECTED's side) and up to two frame names is paired with it and
# shown as those changes. Then the weight of EXPECTED by kind of change.
show_differences() {
	awk 'NR == FNR { w = $NF; sub(/ [^ ]+$/, ""); want[$0] += w; total += w; next }
	     { w = $NF; sub(/ [^ ]+$/, ""); got[$0] += w }
	     END {
		for (s in want) if (!(s in got) || got[s] != want[s]) order[++nm] = s
		for (s in got) if (!(s in want) || got[s] != want[s]) extra[s] = got[s]
		# the heaviest first, then by stack
		for (i = 2; i <= nm; i++)
			for (j = i; j > 1 && (want[order[j]] > want[order[j - 1]] ||
			     (want[order[j]] == want[order[j - 1]] && order[j] < order[j - 1])); j--) {
				t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
			}
		for (i = 1; i <= nm; i++) {
			s = order[i]; t = s; root = 0
			print "    < " s " " want[s]
			if (match(t, /^[^;]*;\[unknown\];/)) {
				t = substr(t, 1, index(t, ";")) substr(t, RLENGTH + 1)
				root = 1
			}
			# the native stack it pairs with: the fewest other names
			# (at most two), the same weight first
			n = split(t, a, ";"); best = ""; bestd = 3; bestsame = 0
			for (x in extra) {
				if ((x in used) || split(x, b, ";") != n) continue
				d = 0; names = ""
				for (k = 1; k <= n && d < bestd; k++)
					if (a[k] != b[k]) { d++; names = names (names ? ", " : "") a[k] " -> " b[k] }
				same = (extra[x] == want[s])
				if (d < bestd || (d == bestd && same && !bestsame)) {
					bestd = d; best = x; bestnames = names; bestsame = same
				}
			}
			if (best == "") { kind[root ? "an [unknown] root frame and more" : "other"] += want[s]; continue }
			used[best] = 1
			change = root ? "without its [unknown] root frame" : ""
			if (bestnames != "") change = change (change ? ", " : "") "with " bestnames
			what = (root ? "an [unknown] root frame" : "") (root && bestnames != "" ? " and " : "")
			what = what (bestnames != "" ? "frame names (perf script -> native): " bestnames : "")
			if (!bestsame) {
				change = change (change ? ", " : "") "weight " extra[best]
				if (what == "") what = "the weight only"
			}
			# only what share() does not count as identical
			if (what != "the weight only") kind[what] += want[s]
			else if (extra[best] < want[s]) kind[what] += want[s] - extra[best]
			print "    >   the same " change
		}
		for (x in extra) if (!(x in used)) print "    > " x " " extra[x]
		print "  perf script'"'"'s weight by kind of difference:"
		nk = 0
		for (k in kind) if (kind[k]) {
			for (j = ++nk; j > 1 && kind[ks[j - 1]] < kind[k]; j--) ks[j] = ks[j - 1]
			ks[j] = k
		}
		for (j = 1; j <= nk; j++) printf "    %6.2f%%  %s\n", 100 * kind[ks[j]] / total, ks[j]
	     }' "$1" "$2"
}

# record NAME MODE PROGRAM ARGS...: NAME.data, with frame pointers (fp)
# or dwarf call graphs (dwarf); standard input and output are the caller's
record() {
	local name=$1 mode=$2 rc=0
	shift 2
	if [ "$mode" = fp ]; then
		perf record -q --no-bpf-event -F 999 -g -o "$name.data" -- "$@" 2>"$name.record.err" || rc=$?
	else
		perf record -q --no-bpf-event -F 997 --call-graph dwarf,65528 -o "$name.data" -- "$@" 2>"$name.record.err" || rc=$?
	fi
	if [ "$rc" = 0 ]; then
		pass
	else
		fail "record $name: exit $rc ($*)"
		sed 's/^/    err| /' "$name.record.err" >&2
	fi
}

# build_both FP DW FP-COMMAND DW-COMMAND: the builds with and without
# frame pointers at once (each is one compiler process), or those of an
# earlier run when kept; rc_fp and rc_dw are their statuses
build_both() {
	local key fp_job dw_job
	key=$(build_key "$3" "$4")
	rc_fp=0 rc_dw=0
	if build_restore "$key" "$1" "$2"; then
		echo "$1, $2: the builds of an earlier run reused"
		return
	fi
	$3 >"$1.log" 2>&1 &
	fp_job=$!
	$4 >"$2.log" 2>&1 &
	dw_job=$!
	wait "$fp_job" || rc_fp=$?
	wait "$dw_job" || rc_dw=$?
	[ "$rc_fp$rc_dw" != 00 ] || build_keep "$key" "$1" "$2"
}

# the comparisons of one recording, which is then removed
compare_all() { # compare_all NAME MODE
	local name=$1 mode=$2
	compare "$name" "$name.data" "" --
	compare "$name-tid-kernel" "$name.data" "-F +pid" -- --tid --kernel
	if [ "$mode" = fp ]; then
		compare "$name-all-addrs" "$name.data" "" -- --all --addrs
	else
		compare "$name-no-inline" "$name.data" "--no-inline" -- --no-inline
	fi
	rm -f "$name.data"
}

SECONDS=0

# lz4 -----------------------------------------------------------------------
if fetch_source lz4; then
	lz4_src=$source_dir
	lz4_files="$lz4_src/lib/lz4.c $lz4_src/lib/lz4hc.c $lz4_src/lib/lz4frame.c $lz4_src/lib/xxhash.c"
	lz4_fp="cc -O2 -g -fno-omit-frame-pointer -I$lz4_src/lib -o lz4-fp $lz4_files $lz4_src/programs/*.c"
	lz4_dw="cc -O2 -g -I$lz4_src/lib -o lz4-dw $lz4_files $lz4_src/programs/*.c"
	build_both lz4-fp lz4-dw "$lz4_fp" "$lz4_dw"
	check_eq "lz4 built with frame pointers" 0 "$rc_fp"
	check_eq "lz4 built without" 0 "$rc_dw"
	echo "lz4: built at ${SECONDS}s"
	awk 'BEGIN { srand(7); for (i = 0; i < 900000; i++)
		printf "record %d level %d the quick brown fox jumps over\n", i % 977, int(rand() * 50) }' >input.txt
	if [ "$rc_fp" = 0 ] && [ "$rc_dw" = 0 ]; then
		record lz4 fp ./lz4-fp -q -9 -f input.txt input.lz4
		compare_all lz4 fp
		check_contains "lz4: its compressor, under main" lz4.native "^lz4-fp;.*main;.*LZ4HC_compress_generic"
		check_contains "lz4: its file layer" lz4.native ";LZ4IO_compressFilename;"
		record lz4-dwarf dwarf ./lz4-dw -q -9 -f input.txt input.lz4
		compare_all lz4-dwarf dwarf
		check_contains "lz4, dwarf: its compressor, from _start" lz4-dwarf.native \
			"^lz4-dw;_start;.*;main;.*LZ4HC_compress_generic"
		# the match finder is inlined (LZ4_FORCE_INLINE) into the compressor
		check_contains "lz4, dwarf: inlined frames" lz4-dwarf.native \
			";LZ4HC_compress_generic_internal;LZ4HC_compress_hashChain;LZ4HC_[A-Za-z]+"
	fi
	rm -f input.txt input.lz4
fi

# rapidjson (C++) -----------------------------------------------------------
if ! command -v c++ >/dev/null; then
	echo "note: no C++ compiler: rapidjson is left out"
elif fetch_source rapidjson; then
	rj_src=$source_dir
	example="$rj_src/example/filterkeydom/filterkeydom.cpp"
	rj_fp="c++ -O2 -g -fno-omit-frame-pointer -I$rj_src/include -o filterkeydom $example"
	rj_dw="c++ -O2 -g -I$rj_src/include -o filterkeydom-dw $example"
	build_both filterkeydom filterkeydom-dw "$rj_fp" "$rj_dw"
	check_eq "filterkeydom built with frame pointers" 0 "$rc_fp"
	check_eq "filterkeydom built without" 0 "$rc_dw"
	echo "rapidjson: example built at ${SECONDS}s"
	# objects whose "meta" holds a "drop" member, which the example filters out
	awk 'BEGIN { srand(7); printf "[";
		for (i = 0; i < 330000; i++)
			printf "%s{\"id\":%d,\"name\":\"item %d of the list\",\"price\":%.3f,\"tags\":[\"a%d\",\"b%d\",true,null],\"meta\":{\"drop\":[1,2,{\"x\":\"%d\"}],\"keep\":%d}}",
				(i ? ",\n" : ""), i, i % 977, rand() * 1000, i % 13, i % 7, i, i % 5
		print "]" }' >in.json
	if [ "$rc_fp" = 0 ] && [ "$rc_dw" = 0 ]; then
		record rapidjson fp ./filterkeydom drop <in.json >filtered.json
		check_not_contains "filterkeydom: the key is filtered out" filtered.json '"drop"'
		compare_all rapidjson fp
		check_contains "rapidjson: the templated parser, demangled" rapidjson.native \
			";main;.*rapidjson::GenericReader<rapidjson::UTF8<char>, .*>::Parse"
		check_contains "rapidjson: the example's filter" rapidjson.native ";FilterKeyHandler<rapidjson::GenericDocument<"
		record rapidjson-dwarf dwarf ./filterkeydom-dw drop <in.json >/dev/null
		compare_all rapidjson-dwarf dwarf
		check_contains "rapidjson, dwarf: inlined Populate under main" rapidjson-dwarf.native \
			";main;rapidjson::GenericDocument<.*>::Populate<FilterKeyReader<rapidjson::FileReadStream> >;"
		check_contains "rapidjson, dwarf: the filter's handler" rapidjson-dwarf.native \
			";FilterKeyHandler<rapidjson::GenericDocument<.*> >::(String|Key|EndObject);"
	fi
	rm -f in.json filtered.json
fi

# pv (system calls) ---------------------------------------------------------
if fetch_source pv; then
	pv_src=$source_dir
	# never build in the cache: a private copy, configured once, built twice
	pv_fp_flags="-O2 -g -fno-omit-frame-pointer" pv_dw_flags="-O2 -g"
	key=$(build_key "$pv_src" "./configure" "make CFLAGS=$pv_fp_flags" "make CFLAGS=$pv_dw_flags")
	if build_restore "$key" pv-fp pv-dw; then
		echo "pv: the builds of an earlier run reused"
	else
		cp -r "$pv_src" pv
		if (cd pv && ./configure) >pv-configure.log 2>&1; then
			pass
		else
			fail "pv: ./configure failed"
			tail -20 pv-configure.log
		fi
		check_exit "pv built with frame pointers" 0 make -C pv -j2 CFLAGS="$pv_fp_flags"
		mv pv/pv pv-fp 2>/dev/null || true
		make -C pv clean >/dev/null 2>&1 || true
		check_exit "pv built without" 0 make -C pv -j2 CFLAGS="$pv_dw_flags"
		mv pv/pv pv-dw 2>/dev/null || true
		[ ! -x pv-fp ] || [ ! -x pv-dw ] || build_keep "$key" pv-fp pv-dw
	fi
	readelf --debug-dump=info pv-fp 2>/dev/null | grep -m3 DW_AT_producer >pv.producer || true
	check_contains "pv built with -fno-omit-frame-pointer" pv.producer "-fno-omit-frame-pointer"
	echo "pv: built at ${SECONDS}s"
	if [ -x pv-fp ] && [ -x pv-dw ]; then
		pv_args="-q -C -B 512 -S -s 45M /dev/zero"
		# shellcheck disable=SC2086
		record pv fp ./pv-fp $pv_args >/dev/null
		compare_all pv fp
		check_contains "pv: its copy loop" pv.native "^pv-fp;.*main;pv_main_loop;"
		# shellcheck disable=SC2086
		record pv-dwarf dwarf ./pv-dw $pv_args >/dev/null
		compare_all pv-dwarf dwarf
		check_contains "pv, dwarf: its copy loop" pv-dwarf.native "^pv-dw;_start;.*;main;pv_main_loop;pv_transfer;"
		if [ "$kernel_frames" = yes ]; then
			for side in text native; do
				check_contains "pv: system calls' kernel frames ($side)" "pv-tid-kernel.$side" \
					";pv_main_loop;.*;entry_SYSCALL_64[a-z_]*_\[k\];"
				check_contains "pv, dwarf: system calls' kernel frames ($side)" "pv-dwarf-tid-kernel.$side" \
					";pv_main_loop;.*;entry_SYSCALL_64[a-z_]*_\[k\];"
			done
			# much of the weight is in the kernel
			k=$(awk '{ t += $NF } /_\[k\]/ { k += $NF } END { printf "%d", t ? 100 * k / t : 0 }' pv-tid-kernel.native)
			echo "pv: $k% of the weight has kernel frames"
			check_eq "pv: at least a third of the weight has kernel frames" yes "$([ "$k" -ge 33 ] && echo yes)"
		fi
	fi
	rm -rf pv
fi

echo "done at ${SECONDS}s"
rm -f ./*.data
