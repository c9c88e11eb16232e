# scripts/setup's package lists: the demo's holds what building and
# recording need, and nothing only the test suite uses (a browser, Go,
# cmocka...); the full one holds both. Nothing is installed here.
setup=$FG_SRC/scripts/setup
check_exit "setup --demo --print-packages" 0 "$setup" --demo --print-packages
cp out demo.txt
for p in build-essential cmake pkg-config libdw-dev libgit2-dev linux-perf; do
	check_contains "the demo needs $p" demo.txt "^$p$"
done
for p in chromium golang-go libcmocka-dev meson bear clang nodejs texinfo; do
	check_not_contains "the demo does without $p" demo.txt "^$p$"
done
check_exit "setup --print-packages" 0 "$setup" --print-packages
cp out all.txt
for p in cmake linux-perf chromium golang-go libcmocka-dev meson autoconf; do
	check_contains "the test suite needs $p" all.txt "^$p$"
done
check_eq "every demo package is in the full list" "" "$(grep -vxFf all.txt demo.txt)"
check_exit "an unknown argument" 1 "$setup" --nonsense
check_contains "an unknown argument: says which exist" err "unknown argument '--nonsense' \(--demo, --print-packages\)"
