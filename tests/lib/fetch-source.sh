#!/usr/bin/env bash
# Fetches the Debian source of a package with `apt-get source` and prints
# the unpacked folder. Sources are kept in $FG_SOURCE_CACHE (CTest points
# it at build/test-sources; default ~/.cache/flamegraph-build/sources),
# keyed by name and version (CACHE/PACKAGE/VERSION/PACKAGE-UPSTREAM), so
# only the first run downloads and parallel tests fetch a package once.
# The newest version the package lists know comes first; when the mirror
# no longer has its files, the next older one is taken.
# The deb-src entry is made by copying the machine's Debian entry with
# `Types: deb-src`. Usage: fetch-source.sh PACKAGE
# Exits 3 when the package lists name versions but the archive serves
# the files of none of them (a mirror between two point releases): a
# fact about the archive, which the tests report as a skip (skip_part).
set -euo pipefail
pkg=$1
cache=${FG_SOURCE_CACHE:-$HOME/.cache/flamegraph-build/sources}
mkdir -p "$cache/$pkg"

sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

# cached VERSION: the unpacked folder of that version, if complete
cached() {
	find "$cache/$pkg/$1" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" 2>/dev/null | head -n 1
}

# versions: what the package lists know, newest first
versions() {
	apt-cache showsrc "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | sort -r -u -V
}

ensure_deb_src() {
	local src_list=/etc/apt/sources.list.d/flamegraph-build-src.sources orig
	if grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ || grep -qs '^deb-src' /etc/apt/sources.list; then
		return 0
	fi
	orig=/etc/apt/sources.list.d/debian.sources
	if [ -f "$orig" ]; then
		sed 's/^Types:.*/Types: deb-src/' "$orig" | $sudo tee "$src_list" >/dev/null
	elif [ -f /etc/apt/sources.list ]; then
		grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
			$sudo tee /etc/apt/sources.list.d/flamegraph-build-src.list >/dev/null
	else
		echo "fetch-source: no Debian apt sources found to copy" >&2
		exit 1
	fi
	$sudo apt-get update -qq >&2
}

ensure_deb_src
mapfile -t known < <(versions)
if [ ${#known[@]} -eq 0 ]; then
	# a package list older than the package: refresh once
	$sudo apt-get update -qq >&2 || true
	mapfile -t known < <(versions)
fi
if [ ${#known[@]} -eq 0 ]; then
	echo "fetch-source: apt-cache showsrc $pkg knows no version (is there a deb-src entry?)" >&2
	exit 1
fi
for v in "${known[@]}"; do
	if dir=$(cached "$v") && [ -n "$dir" ]; then
		echo "$dir"
		exit 0
	fi
done

command -v dpkg-source >/dev/null || $sudo apt-get install -y -qq dpkg-dev >&2
# one fetch of a package at a time; whoever waited finds it cached
exec 9>"$cache/$pkg/.lock"
flock 9
for v in "${known[@]}"; do
	if dir=$(cached "$v") && [ -n "$dir" ]; then
		echo "$dir"
		exit 0
	fi
done

# unpacked in a scratch folder and moved into the cache only when complete:
# an interrupted fetch never leaves a half-unpacked tree to be reused
work=$(mktemp -d "$cache/$pkg/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
refreshed=no
served=no
for v in "${known[@]}"; do
	for attempt in 1 2; do
		if (cd "$work" && apt-get source -qq "$pkg=$v" 2>&1 | tee .log >&2; exit "${PIPESTATUS[0]}"); then
			src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" | head -n 1)
			[ -n "$src" ] || { echo "fetch-source: apt-get source $pkg=$v unpacked nothing" >&2; exit 1; }
			mkdir -p "$cache/$pkg/$v"
			mv "$src" "$cache/$pkg/$v/"
			echo "$cache/$pkg/$v/$(basename "$src")"
			exit 0
		fi
		# a download that failed (404) is the archive's; anything else,
		# a failure of the unpacking, is a failure of the test
		grep -qE '^(E: Failed to fetch|Err:)' "$work/.log" 2>/dev/null || served=yes
		rm -rf "${work:?}"/*
		# a stale package list or a network hiccup: refresh once and retry;
		# after that, the version is missing from the mirror: an older one
		[ "$refreshed" = no ] || break
		refreshed=yes
		sleep 2
		$sudo apt-get update -qq >&2 || true
	done
	echo "fetch-source: $pkg $v could not be fetched; trying an older version" >&2
done
if [ "$served" = no ]; then
	echo "fetch-source: the archive serves no source of $pkg (${known[*]}): every download failed" >&2
	exit 3
fi
echo "fetch-source: apt-get source $pkg failed for every version (${known[*]})" >&2
exit 1
