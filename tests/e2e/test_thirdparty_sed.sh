# flamegraph-build on GNU sed from its Debian source: an autotools project
# built by one non-recursive Makefile (automake's subdir-objects), whose
# gnulib library lib/libsed.a and sed/libver.a have no Makefile of their
# folder: they are made through the top Makefile (make lib/libsed.a),
# after its generated headers. Run from the unpacked folder with no
# argument but the target; the tree stays as it was, timestamps included.
# ctest: LABELS thirdparty
for tool in make cc; do
	command -v $tool >/dev/null || { echo "$tool not installed (apt-get install build-essential)"; exit 77; }
done
require_perf
fetch_source sed || finish
# never build in the cache: a private copy per run, timestamps kept
cp -a "$source_dir" sed-src
snapshot() { find sed-src -mindepth 1 -path sed-src/build -prune -o -printf '%p %T@ %s %m\n' | LC_ALL=C sort; }
snapshot > before.txt
awk 'BEGIN { srand(3); for (i = 0; i < 200000; i++)
	printf "%s %d words=%x and some more text\n", (rand() < 0.5 ? "alpha" : "beta"), i, int(rand() * 1e6) }' > input.txt

check_exit "sed --list" 0 sh -c 'cd sed-src && flamegraph-build --list'
check_contains "sed: the program is a bin" out "^bin +sed$"
check_exit "sed --bin sed" 0 sh -c "cd sed-src && flamegraph-build --bin sed -F 999 -o ../sed.svg --folded ../sed.folded -- -E 's/([a-z]+) ([0-9]+)/\\2 \\1/g; /beta/d' $PWD/input.txt > ../output.txt"
check_contains "sed: gnulib's library made through the top Makefile" err "AR +lib/libsed.a"
check_not_contains "sed: no make -C in a folder without a Makefile" err "no makefile found"
check_eq "sed: its output" "$(awk '!/^beta/ { print $2, $1, $3, $4, $5, $6, $7 }' input.txt | head -2)" "$(head -2 output.txt)"
check_contains "sed: its functions, rooted in main" sed.folded "^sed;.*main;process_files;(read_pattern_space|execute_program|output_missing_newline|ck_fwrite)"
check_contains "sed: regex matching under execute_program" sed.folded ";main;process_files;execute_program;.*(match_regex|re_search)"
snapshot > after.txt
check_same_file "sed: the user's tree is unchanged" before.txt after.txt
cp sed.svg "$FG_ARTIFACTS/thirdparty-sed.svg" 2>/dev/null || true
finish
