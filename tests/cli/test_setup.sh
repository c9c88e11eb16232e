# scripts/setup's package lists: the demo's holds what building and
# recording need, and nothing only the test suite uses (a browser, Go,
# cmocka...); the full one holds both. The system is read from sample
# os-release files (tests/data/os-release, FG_OS_RELEASE): each family
# gets its own names; a system of no known family gets the list of what to
# install and a failure. Nothing is installed here.
setup=$FG_SRC/scripts/setup
osr=$FG_SRC/tests/data/os-release
kernel=$(uname -r)

# print SAMPLE [--demo]: the list scripts/setup prints for that system
# (out, err), into SAMPLE[-demo].txt
print() {
	local file=$1${2:+-demo}.txt
	FG_OS_RELEASE=$osr/$1 check_exit "$1${2:+ --demo}: --print-packages" 0 "$setup" ${2:+"$2"} --print-packages
	cp out "$file"
}

# has FILE WHAT PACKAGE...: each PACKAGE is a line of FILE (in bash, not a
# grep per package: the checks are many)
has() {
	local f=$1 what=$2 p all
	shift 2
	all=" $(tr '\n' ' ' <"$f") "
	for p in "$@"; do
		if [[ $all == *" $p "* ]]; then pass; else fail "$what: $p is not in $f:$all"; fi
	done
}
# lacks FILE WHAT PACKAGE...
lacks() {
	local f=$1 what=$2 p all
	shift 2
	all=" $(tr '\n' ' ' <"$f") "
	for p in "$@"; do
		if [[ $all == *" $p "* ]]; then fail "$what: $p is in $f"; else pass; fi
	done
}

for sys in debian-11 debian-12 debian-13 ubuntu-22.04 ubuntu-24.04 linuxmint-21.3 fedora-41 rocky-9 arch manjaro; do
	print "$sys" --demo
	print "$sys"
	check_eq "$sys: every demo package is in the full list" "" "$(grep -vxFf "$sys.txt" "$sys-demo.txt")"
	check_eq "$sys: the test suite adds packages" 1 "$([ "$(wc -l <"$sys.txt")" -gt "$(wc -l <"$sys-demo.txt")" ] && echo 1)"
	check_eq "$sys: no comment or blank line" "" "$(grep -E '^\s*(#|$)|\[' "$sys.txt")"
done

# Debian: perf is linux-perf; the browser is chromium
for sys in debian-11 debian-12 debian-13; do
	has "$sys-demo.txt" "$sys demo" build-essential cmake pkg-config libdw-dev libgit2-dev linux-perf
	lacks "$sys-demo.txt" "$sys demo" chromium golang-go libcmocka-dev meson bear clang nodejs texinfo
	has "$sys.txt" "$sys tests" cmake linux-perf chromium golang-go libcmocka-dev meson autoconf heaptrack
	lacks "$sys.txt" "$sys" linux-tools-common
done
check_eq "Debian 11, 12 and 13 share one list" "" "$(diff debian-11.txt debian-13.txt && diff debian-12.txt debian-13.txt)"
# Ubuntu (and Linux Mint, ID_LIKE="ubuntu debian"): perf is the wrapper and
# the running kernel's tools; no chromium (a snap)
for sys in ubuntu-22.04 ubuntu-24.04 linuxmint-21.3; do
	has "$sys-demo.txt" "$sys demo" build-essential libdw-dev linux-tools-common "linux-tools-$kernel"
	lacks "$sys.txt" "$sys" linux-perf chromium chromium-browser
	has "$sys.txt" "$sys tests" golang-go libcmocka-dev
done
# Fedora (and Rocky, ID_LIKE="rhel centos fedora"), Arch (and Manjaro)
for sys in fedora-41 rocky-9; do
	has "$sys-demo.txt" "$sys demo" gcc make cmake pkgconf-pkg-config cjson-devel libgit2-devel \
		elfutils-libelf-devel elfutils-devel libzstd-devel zlib-devel perf
	lacks "$sys-demo.txt" "$sys demo" build-essential linux-perf libcmocka-devel
	has "$sys.txt" "$sys tests" libcmocka-devel golang chromium
done
for sys in arch manjaro; do
	has "$sys-demo.txt" "$sys demo" base-devel cmake cjson libgit2 libelf zstd zlib perf
	lacks "$sys-demo.txt" "$sys demo" build-essential linux-perf cmocka
	has "$sys.txt" "$sys tests" cmocka go chromium
done

# the package manager each family installs with
. "$FG_SRC/scripts/lib/distro.sh"
manager() {
	FG_OS_RELEASE=$osr/$1 fg_distro_detect
	check_eq "$1: family" "$2" "$FG_DISTRO_FAMILY"
	check_eq "$1: package manager" "$3" "$FG_DISTRO_MANAGER"
}
manager debian-11 debian apt-get
manager debian-13 debian apt-get
manager ubuntu-24.04 ubuntu apt-get
manager linuxmint-21.3 ubuntu apt-get
manager fedora-41 fedora dnf
manager rocky-9 fedora dnf
manager arch arch pacman
manager manjaro arch pacman
manager unknown unknown ""
FG_OS_RELEASE=$osr/linuxmint-21.3 fg_distro_detect
check_eq "Linux Mint: its release and Ubuntu's" "21.3 virginia jammy" "$FG_DISTRO_RELEASE"

# a line for some releases only: "[11 bullseye]" there, "[!11]" elsewhere
printf '%s\n' 'a' 'only-11 [11]' 'not-11 [!11]  # a comment' 'b' '# --- the test suite ---' 'c' >list.txt
FG_OS_RELEASE=$osr/debian-11 fg_distro_detect
check_eq "Debian 11: its lines" "a only-11 b c" "$(fg_distro_list list.txt all | tr '\n' ' ' | sed 's/ $//')"
FG_OS_RELEASE=$osr/debian-13 fg_distro_detect
check_eq "Debian 13: its lines" "a not-11 b" "$(fg_distro_list list.txt demo | tr '\n' ' ' | sed 's/ $//')"

# a system of no known family: the list of what to install, and a failure
FG_OS_RELEASE=$osr/unknown check_exit "an unknown system: --print-packages fails" 1 "$setup" --print-packages
check_contains "an unknown system: named" err "Example OS 3 is none of the systems whose packages it knows"
check_contains "an unknown system: what to do next" err "FG_NO_INSTALL=1 scripts/setup"
check_contains "an unknown system: perf, what it is" out "^perf, the Linux profiler"
check_contains "an unknown system: the test suite's part" out "^cmocka"
FG_OS_RELEASE=$osr/unknown check_exit "an unknown system: setup --demo stops before installing" 1 "$setup" --demo
check_contains "an unknown system: the demo's list" out "^libgit2"
check_not_contains "an unknown system: not the test suite's" out "cmocka"
FG_OS_RELEASE=$PWD/none check_exit "no os-release: setup stops" 1 "$setup" --print-packages
check_contains "no os-release: says so" err "this system \(no $PWD/none\)"

check_exit "an unknown argument" 1 "$setup" --nonsense
check_contains "an unknown argument: says which exist" err "unknown argument '--nonsense' \(--demo, --print-packages\)"
