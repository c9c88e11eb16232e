# flamegraph-build's errors on flamegraph.toml projects: each exits with
# its exit code and says where the mistake is and what to do.
mkdir -p proj/src
cat > proj/src/a.c <<'C'
int main(void) { return 0; }
C
cat > proj/src/t.c <<'C'
int main(int argc, char **argv) { (void)argv; return argc > 5; }
C
good='[package]
name = "demo"
[[bin]]
name = "a"
sources = ["src/a.c"]
[[test]]
name = "t"
sources = ["src/t.c"]
[features]
default = ["base"]
base = { defines = ["BASE"] }
extra = { defines = ["EXTRA"] }
[profile.quick]
inherits = "dev"
'
printf '%s' "$good" > proj/flamegraph.toml
fgb() { flamegraph-build --manifest-path "$PWD/proj" "$@"; }

check_exit "list works" 0 fgb --list
check_contains "list" out "^bin +a$"

# malformed TOML: file:line:col, exit 1
printf '[package]\nname = "demo\n' > proj/flamegraph.toml
check_exit "malformed toml" 1 fgb --bin a
check_contains "malformed: file:line:col" err "error: .*proj/flamegraph.toml:2:[0-9]+: "
# a schema mistake: file:line:col and the valid keys
printf '[package]\nname = "demo"\n[[bin]]\nname = "a"\nsource = ["src/a.c"]\n' > proj/flamegraph.toml
check_exit "unknown key" 1 fgb --bin a
check_contains "unknown key: position and valid keys" err "flamegraph.toml:5:1: unknown key \`source\` in \[\[bin\]\] — valid keys: name, sources"
# a bin without sources in the cc system
printf '[package]\nname = "demo"\n[[bin]]\nname = "a"\n' > proj/flamegraph.toml
check_exit "no sources" 1 fgb --bin a
check_contains "no sources: what to write" err "flamegraph.toml:3:1: bin 'a' has no sources — add sources"
# a missing source file is named
printf '[package]\nname = "demo"\n[[bin]]\nname = "a"\nsources = ["src/gone.c"]\n' > proj/flamegraph.toml
check_exit "missing source" 1 fgb --bin a
check_contains "missing source named" err "src/gone.c does not exist — fix \`sources\`"

printf '%s' "$good" > proj/flamegraph.toml
# unknown feature: lists the project's features
check_exit "unknown feature" 1 fgb --bin a --features turbo
check_contains "unknown feature lists them" err "unknown feature 'turbo' — the features of .*: base, extra"
# unknown profile: lists the profiles
check_exit "unknown profile" 1 fgb --bin a --profile fastest
check_contains "unknown profile lists them" err "unknown profile 'fastest' — .*release, dev, quick"
# -r/--release with another profile: two profiles asked for
check_exit "-r --dev" 1 fgb -r --dev --bin a
check_contains "-r --dev: says so" err "error: -r/--release and --dev ask for two profiles — give one of them"
check_exit "-r --profile quick" 1 fgb --release --profile quick --bin a
check_contains "-r --profile quick: says so" err "and --profile quick ask for two profiles"
# unknown target: lists the targets by kind
check_exit "unknown bin" 1 fgb --bin nope
check_contains "unknown bin lists targets" err "no bin target named 'nope'"
check_contains "unknown bin lists targets" err "test +t"
# "did you mean": a near name, a target of another kind, a near option, a
# program's option before --
check_exit "misspelt feature" 1 fgb --bin a --features extr
check_contains "misspelt feature: the near one" err "unknown feature 'extr' — did you mean 'extra'\? the features of"
check_exit "misspelt profile" 1 fgb --bin a --profile quik
check_contains "misspelt profile: the near one" err "unknown profile 'quik' — did you mean 'quick'\?"
sed -i 's/^name = "a"$/name = "stress2"/' proj/flamegraph.toml
check_exit "misspelt bin" 1 fgb --bin stres2
check_contains "misspelt bin: the near one" err "no bin target named 'stres2' .* did you mean 'stress2'\? Otherwise pick one of these"
check_exit "a test named with --bin" 1 fgb --bin t
check_contains "a test named with --bin: the right flag" err "error: 't' is a test, not a bin: use --test t$"
check_exit "misspelt option" 1 fgb --bins stress2
check_contains "misspelt option: the near one" err "unknown option '--bins' — did you mean --bin\?"
check_exit "a program option before --" 1 fgb --bin stress2 --rounds 8
check_contains "a program option: put it after --" err "unknown option '--rounds' — if it is the program's, put it after --"
printf '%s' "$good" > proj/flamegraph.toml
# a filter for a test that declares none
check_exit "filter without template" 1 fgb --unit-test t -- case1
check_contains "filter error says what to add" err "declares no filter — add filter = "
# -p naming another package
check_exit "unknown package" 1 fgb -p other --bin a
check_contains "unknown package" err "no package 'other'"

# a compile error: the compiler's output and exit 2, nothing recorded
printf 'int main(void) { return missing_name; }\n' > proj/src/a.c
check_exit "compile error" 2 fgb --bin a -o a.svg
check_contains "compiler output shown" err "missing_name"
check_contains "compile error says what to do" err "compiling src/a.c failed .*fix the error and run again"
check_eq "no graph written" "no" "$([ -e a.svg ] && echo yes || echo no)"

# a link error (undefined function) exits 2 too
printf 'void nowhere(void);\nint main(void) { nowhere(); return 0; }\n' > proj/src/a.c
check_exit "link error" 2 fgb --bin a -o a.svg
check_contains "linker output shown" err "nowhere"
check_contains "link error says what to do" err "linking a failed"

# the user's files are never touched: only build/flamegraph/ is written
check_eq "sources untouched" "src/a.c src/t.c" "$(cd proj && find src -type f | sort | tr '\n' ' ' | sed 's/ $//')"

# a compiler that does not exist
printf '[package]\nname = "demo"\n[build]\ncc = "no-such-cc-xyz"\n[[bin]]\nname = "a"\nsources = ["src/a.c"]\n' > proj/flamegraph.toml
printf 'int main(void) { return 0; }\n' > proj/src/a.c
check_exit "missing compiler" 1 fgb --bin a
check_contains "missing compiler named" err "no-such-cc-xyz' was not found — install it"
finish
