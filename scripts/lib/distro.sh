# shellcheck shell=bash disable=SC2034 # FG_DISTRO_* are for the scripts that source it
# The distribution this runs on, its package manager and its names for
# what the project needs. Sourced by scripts/setup (bash).
#
# fg_distro_detect reads os-release (FG_OS_RELEASE names another file, for
# tests; else /etc/os-release, else /usr/lib/os-release) and sets
#   FG_DISTRO_FAMILY   debian, ubuntu, fedora, arch, or unknown
#   FG_DISTRO_NAME     PRETTY_NAME (or ID) of the system, for messages
#   FG_DISTRO_RELEASE  VERSION_ID, VERSION_CODENAME and UBUNTU_CODENAME,
#                      space-separated, those that are set
#   FG_DISTRO_MANAGER  apt-get, dnf, pacman, or "" when unknown
# The family is the first of ID, then of ID_LIKE's words in their order,
# that is known: Linux Mint (ID_LIKE="ubuntu debian") is ubuntu, Rocky
# Linux (ID_LIKE="rhel centos fedora") fedora, Manjaro (ID_LIKE=arch)
# arch.

# fg_distro_read FILE: os-release's fields of interest into fg_osr_KEY
# (ID, ID_LIKE, PRETTY_NAME, VERSION_ID, VERSION_CODENAME,
# UBUNTU_CODENAME), quotes removed
fg_distro_read() {
	local key value
	fg_osr_ID="" fg_osr_ID_LIKE="" fg_osr_PRETTY_NAME="" fg_osr_VERSION_ID=""
	fg_osr_VERSION_CODENAME="" fg_osr_UBUNTU_CODENAME=""
	while IFS='=' read -r key value || [ -n "$key" ]; do
		case $key in
		ID | ID_LIKE | PRETTY_NAME | VERSION_ID | VERSION_CODENAME | UBUNTU_CODENAME)
			case $value in
			\"*\" | \'*\') value=${value:1:${#value}-2} ;;
			esac
			printf -v "fg_osr_$key" '%s' "$value"
			;;
		esac
	done <"$1"
}

fg_distro_detect() {
	local file=${FG_OS_RELEASE:-} word v
	if [ -z "$file" ]; then
		file=/etc/os-release
		[ -r "$file" ] || file=/usr/lib/os-release
	fi
	FG_DISTRO_FAMILY=unknown FG_DISTRO_NAME="an unknown system" FG_DISTRO_RELEASE="" FG_DISTRO_MANAGER=""
	if [ ! -r "$file" ]; then
		FG_DISTRO_NAME="this system (no $file)"
		return 0
	fi
	fg_distro_read "$file"
	FG_DISTRO_NAME=${fg_osr_PRETTY_NAME:-${fg_osr_ID:-an unknown system}}
	for v in "$fg_osr_VERSION_ID" "$fg_osr_VERSION_CODENAME" "$fg_osr_UBUNTU_CODENAME"; do
		[ -z "$v" ] || FG_DISTRO_RELEASE="$FG_DISTRO_RELEASE${FG_DISTRO_RELEASE:+ }$v"
	done
	for word in $fg_osr_ID $fg_osr_ID_LIKE; do
		case $word in
		debian | ubuntu | fedora | arch) FG_DISTRO_FAMILY=$word && break ;;
		esac
	done
	case $FG_DISTRO_FAMILY in
	debian | ubuntu) FG_DISTRO_MANAGER=apt-get ;;
	fedora) FG_DISTRO_MANAGER=dnf ;;
	arch) FG_DISTRO_MANAGER=pacman ;;
	esac
}

# fg_distro_for_release RELEASES: whether a line's "[...]" list holds for
# this release: "11 12" only there, "!11" everywhere but there
fg_distro_for_release() {
	local want have any=no
	for want in $1; do
		case $want in
		!*)
			for have in $FG_DISTRO_RELEASE; do
				[ "$have" != "${want#!}" ] || return 1
			done
			;;
		*)
			any=yes
			for have in $FG_DISTRO_RELEASE; do
				[ "$have" != "$want" ] || return 0
			done
			;;
		esac
	done
	[ "$any" = no ]
}

# fg_distro_list FILE PART: the lines of a package list for this release,
# PART demo (up to the test suite's marker) or all; {kernel} becomes the
# running kernel's release
fg_distro_list() {
	local line name releases kernel
	kernel=${FG_KERNEL_RELEASE:-$(uname -r)}
	while IFS= read -r line || [ -n "$line" ]; do
		if [ "$2" = demo ] && [[ $line == "# --- the test suite"* ]]; then
			break
		fi
		line=${line%%#*}
		line=${line%"${line##*[![:space:]]}"}
		[ -n "${line//[[:space:]]/}" ] || continue
		name=$line releases=""
		if [[ $line == *"["*"]" ]]; then
			name=${line%%[*}
			name=${name%"${name##*[![:space:]]}"}
			releases=${line#*[}
			releases=${releases%]}
			fg_distro_for_release "$releases" || continue
		fi
		echo "${name//\{kernel\}/$kernel}"
	done <"$1"
}

# fg_distro_installed PACKAGE: whether the package manager has it
fg_distro_installed() {
	case $FG_DISTRO_MANAGER in
	apt-get) dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed' ;;
	dnf) rpm -q --whatprovides "$1" >/dev/null 2>&1 ;;
	pacman) pacman -Q "$1" >/dev/null 2>&1 ;;
	*) return 1 ;;
	esac
}

# fg_distro_install PACKAGE...: installs them (as root, or through sudo)
fg_distro_install() {
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	case $FG_DISTRO_MANAGER in
	apt-get)
		$sudo apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
		;;
	dnf) $sudo dnf install -y -q "$@" ;;
	pacman) $sudo pacman -S --needed --noconfirm "$@" ;;
	*) return 1 ;;
	esac
}
