# The programs a test builds itself from third-party sources (not through
# our programs, whose builds are what the tests check), kept between runs
# of the suite in $FG_SOURCE_CACHE/builds so that a later run reuses them
# while nothing they are built from has changed (sourced).

# build_key TEXT...: a key naming TEXT (the source folder, which names the
# package version, and the build commands) and the compilers' versions
build_key() {
	{
		printf '%s\n' "$@"
		cc --version 2>/dev/null | head -n 1
		c++ --version 2>/dev/null | head -n 1
	} | sha256sum | cut -c1-16
}

# build_restore KEY FILE...: copies each FILE kept under KEY into the
# current folder; 1 (and nothing copied) unless all of them are kept
build_restore() {
	local dir=${FG_SOURCE_CACHE:?}/builds/$1 f
	shift
	for f in "$@"; do [ -f "$dir/$f" ] || return 1; done
	for f in "$@"; do cp -p "$dir/$f" "./$f"; done
}

# build_keep KEY FILE...: keeps FILE... (of the current folder) under KEY;
# the folder appears complete or not at all, whoever else keeps the same
build_keep() {
	local dir=${FG_SOURCE_CACHE:?}/builds/$1 tmp
	shift
	mkdir -p "${dir%/*}"
	tmp=$(mktemp -d "$dir.XXXXXX")
	cp -p "$@" "$tmp/" && mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
}
