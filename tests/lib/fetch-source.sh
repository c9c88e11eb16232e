#!/usr/bin/env bash
# Fetches the Debian source of a package with `apt-get source` and prints
# the unpacked folder. Sources are cached in $FG_SOURCE_CACHE (default
# ~/.cache/flamegraph-build/sources), so only the first run downloads.
# The deb-src entry is made by copying the machine's Debian entry with
# `Types: deb-src`. Usage: fetch-source.sh PACKAGE
set -euo pipefail
pkg=$1
cache=${FG_SOURCE_CACHE:-$HOME/.cache/flamegraph-build/sources}
mkdir -p "$cache/$pkg"

found=$(find "$cache/$pkg" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" | head -n 1)
if [ -n "$found" ]; then
	echo "$found"
	exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
src_list=/etc/apt/sources.list.d/flamegraph-build-src.sources
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
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
fi
command -v dpkg-source >/dev/null || $sudo apt-get install -y -qq dpkg-dev >&2
# unpacked in a scratch folder and moved into the cache only when complete:
# an interrupted fetch never leaves a half-unpacked tree to be reused
work=$(mktemp -d "$cache/$pkg/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
for attempt in 1 2 3; do
	(cd "$work" && apt-get source -qq "$pkg" >&2) && break
	[ "$attempt" -lt 3 ] || { echo "fetch-source: apt-get source $pkg failed 3 times" >&2; exit 1; }
	# a stale package list or a network hiccup: refresh and try again
	sleep $((attempt * 5))
	$sudo apt-get update -qq >&2 || true
done
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" | head -n 1)
[ -n "$src" ] || { echo "fetch-source: apt-get source $pkg unpacked nothing" >&2; exit 1; }
mv "$src" "$cache/$pkg/"
echo "$cache/$pkg/$(basename "$src")"
