# A perf that is missing, or there but unable to run, is named as such
# with the command that fixes it on this system, which the programs read
# from os-release (the samples of tests/data/os-release, FG_OS_RELEASE):
# Ubuntu's /usr/bin/perf without the running kernel's linux-tools
# package, Debian 11's without its linux-perf-X.Y, a perf too old for
# --control. Fake perfs on PATH, with --recorder perf (the native
# recorder would record without them); no perf runs.
osr=$FG_SRC/tests/data/os-release
kernel=$(uname -r)
mkdir bin
# Ubuntu's wrapper (linux-tools-common) when linux-tools-KERNEL is missing
cat >bin/perf <<'SH'
#!/bin/sh
cat >&2 <<MSG
WARNING: perf not found for kernel 6.8.0-45

  You may need to install the following packages for this specific kernel:
    linux-tools-6.8.0-45-generic
    linux-cloud-tools-6.8.0-45-generic

  You may also want to install one of the following packages to keep up to date:
    linux-tools-generic
    linux-cloud-tools-generic
MSG
exit 2
SH
chmod +x bin/perf
echo "keep me" >precious.svg

# perf_for SAMPLE WHAT EXPECTED_FIX: flamegraph -- true on that system ends
# with exit 3 and the fix (grep -E) after what the wrapper said
perf_for() {
	FG_OS_RELEASE=$osr/$1 PATH="$PWD/bin:$PATH" check_exit "$2 ($1): exit 3" 3 flamegraph --recorder perf -o precious.svg -- true
	check_contains "$2 ($1): named as such" err "^flamegraph: error: perf cannot run: it is a wrapper that found no perf for the running kernel"
	check_contains "$2 ($1): what it said" err 'it says "WARNING: perf not found for kernel 6.8.0-45" and names linux-tools-6.8.0-45-generic'
	check_contains "$2 ($1): the fix" err "$3"
	check_not_contains "$2 ($1): not a plain perf failure" err "perf record exited"
}
ubuntu_fix="\) — install the running kernel's perf: sudo apt-get install linux-tools-common linux-tools-$kernel$"
perf_for ubuntu-24.04 "Ubuntu's wrapper" "$ubuntu_fix"
perf_for ubuntu-22.04 "Ubuntu's wrapper" "$ubuntu_fix"
perf_for linuxmint-21.3 "Ubuntu's wrapper" "$ubuntu_fix"
perf_for unknown "Ubuntu's wrapper" "\) — install the perf of the running kernel \(Ubuntu: linux-tools-common and linux-tools-KERNEL"
check_eq "the wrapper: the old file is kept" "keep me" "$(cat precious.svg)"
# flamegraph-build says the same (its build runs first: a flamegraph.toml
# of one program)
mkdir proj
printf 'int main(void) { return 0; }\n' >proj/main.c
printf '[package]\nname = "p"\n\n[[bin]]\nname = "p"\nsources = ["main.c"]\n' >proj/flamegraph.toml
FG_OS_RELEASE=$osr/ubuntu-24.04 PATH="$PWD/bin:$PATH" \
	check_exit "flamegraph-build, Ubuntu's wrapper: exit 3" 3 flamegraph-build --recorder perf --manifest-path proj --bin p -o b.svg
check_contains "flamegraph-build: the wrapper and the fix" err "^flamegraph-build: error: perf cannot run: it is a wrapper .* — install the running kernel's perf: sudo apt-get install linux-tools-common linux-tools-$kernel$"

# Debian 11's wrapper (linux-base) without linux-perf-X.Y
printf '#!/bin/sh\necho "E: linux-perf-5.10 is not installed." >&2\nexit 1\n' >bin/perf
FG_OS_RELEASE=$osr/debian-11 PATH="$PWD/bin:$PATH" check_exit "Debian 11's wrapper: exit 3" 3 flamegraph --recorder perf -o precious.svg -- true
check_contains "Debian 11's wrapper: named, with the fix" err "perf cannot run: it is a wrapper .*names linux-perf-5.10\) — install the running kernel's perf: sudo apt-get install linux-perf$"

# a perf too old for --control
printf '#!/bin/sh\necho "  Error: unknown option \\`control'"'"'" >&2\nexit 129\n' >bin/perf
FG_OS_RELEASE=$osr/fedora-41 PATH="$PWD/bin:$PATH" check_exit "too old: exit 3" 3 flamegraph --recorder perf -o precious.svg -- true
check_contains "too old: named, with Fedora's fix" err "^flamegraph: error: this perf is too old \(.*control.*\) — install perf 5.10 or newer: sudo dnf upgrade perf$"

# perf not on PATH: each family's own command
missing() { # SAMPLE EXPECTED
	FG_OS_RELEASE=$osr/$1 check_exit "no perf ($1): exit 3" 3 env PATH="$FG_BIN" "$FG_BIN/flamegraph" --recorder perf -o precious.svg -- /bin/true
	check_contains "no perf ($1): the command" err "^flamegraph: error: perf was not found — install perf: $2 \(or set PERF to its path\)$"
}
missing debian-11 "sudo apt-get install linux-perf"
missing debian-13 "sudo apt-get install linux-perf"
missing ubuntu-24.04 "sudo apt-get install linux-tools-common linux-tools-$kernel"
missing linuxmint-21.3 "sudo apt-get install linux-tools-common linux-tools-$kernel"
missing fedora-41 "sudo dnf install perf"
missing rocky-9 "sudo dnf install perf"
missing arch "sudo pacman -S perf"
missing manjaro "sudo pacman -S perf"
FG_OS_RELEASE=$osr/unknown check_exit "no perf (unknown): exit 3" 3 env PATH="$FG_BIN" "$FG_BIN/flamegraph" --recorder perf -o precious.svg -- /bin/true
check_contains "no perf (unknown): every family's" err "Debian: apt install linux-perf; Ubuntu: .*Fedora/RHEL: dnf install perf; Arch: pacman -S perf"
check_eq "the old file is kept" "keep me" "$(cat precious.svg)"
