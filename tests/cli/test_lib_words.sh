# The library speaks in its own terms: no string of src/lib names a flag
# of our programs (tests/tools/check-lib-words); it names option fields in
# backquotes, which the programs say with their flags, so the users read
# the same advice as before.
words=$FG_SRC/tests/tools/check-lib-words

check_exit "no flag of ours in a library string" 0 bash "$words" "$FG_SRC"
check_contains "the checker says what it checked" out 'no violation'

# the checker on a small tree: a flag in a message fails and is named; a
# comment, another tool's command line and a backquoted field pass
t=$TMPDIR/words
mkdir -p "$t"/src/cli/common "$t"/src/lib/run
printf 'static const fg_option o[] = { FG_OPT_BOOL(0, "stream", &s, "help"), FG_OPT_END() };\n' \
	>"$t"/src/cli/prog.c
cat >"$t"/src/lib/run/ok.c <<'C'
/* record without --stream */
int f(void) { return fg_error_set(1, "record without `opts.stream`"); }
int g(fg_strvec *v) { return fg_strvec_push(v, "--stream"); }
C
cat >"$t"/src/cli/common/diag.c <<'C'
static const struct { const char *field, *flag; } words[] = {
	{ "stream", "--stream" },
};
C
check_exit "a clean fixture passes" 0 bash "$words" "$t"
printf 'int u(void) { return fg_error_set(1, "drop `opts.streem`"); }\n' >"$t"/src/lib/run/typo.c
check_exit "a field the programs cannot say fails" 1 bash "$words" "$t"
check_contains "the unknown field is named" out '^src/lib/run/typo.c:1: the option field `opts.streem` has no flag'
rm "$t"/src/lib/run/typo.c
printf 'int h(void) { return fg_error_set(1, "drop --stream"); }\n' >>"$t"/src/lib/run/ok.c
check_exit "a flag in a library message fails" 1 bash "$words" "$t"
check_contains "the violation is named with its line" out '^src/lib/run/ok.c:4: the library names the flag --stream'

# what users read: the library's field names said as flags
check_exit "a conflict of options" 1 "$FG_BIN"/flamegraph --stream --perf-script -- true
check_contains "the conflict names the flags" err 'error: --stream cannot be combined with --perf-script'
check_not_contains "no field name reaches the user" err '`'
check_exit "a bad PID" 1 "$FG_BIN"/flamegraph --pid 12x
check_contains "the advice names the flag" err 'e.g. --pid 1234,5678'
check_exit "bad graph numbers" 1 "$FG_BIN"/flamegraph-render --factor 0 /dev/null
check_contains "the render advice names the flags" err '--min-width, --factor and --total must be finite'

# other names in backquotes are not option fields: a flamegraph.toml's
# keys and feature names stay as the user wrote them, even when a flag of
# ours has the same name
mkdir -p toml-keys
printf '[package]\nname = "x"\n[[bin]]\nname = "x"\nsources = ["x.c"]\n[features]\nstream = { output = 1 }\n' \
	>toml-keys/flamegraph.toml
check_exit "a bad key in a feature" 1 "$FG_BIN"/flamegraph-build --manifest-path toml-keys --list
check_contains "the TOML names are kept" err 'unknown key `output` in feature `stream`'
