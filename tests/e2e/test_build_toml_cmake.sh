# A flamegraph.toml beside a CMakeLists.txt augments the CMake project:
# [cmake] args reach the configure step, a feature maps to a CMake option,
# target tables change kinds and default arguments.
require_perf
cp -r "$FG_SRC/examples/cmake" proj
rm -rf proj/build
cat > proj/flamegraph.toml <<'TOML'
[package]
name = "stress"
[cmake]
args = ["-DFROM_FLAMEGRAPH_TOML=yes"]
[features]
speedy = { cmake = "ENABLE_FAST_HASH" }
[[bin]]
name = "stress2"
args = ["--rounds", "5"]
[[bench]]
name = "wordfreq"
TOML
fgb() { flamegraph-build --manifest-path "$PWD/proj" "$@"; }

check_exit "--list" 0 fgb --list
check_contains "wordfreq is a bench now" out "^bench .*wordfreq"
check_contains "no examples left" out "^example +\(none\)"
check_exit "--features speedy" 0 fgb --bin stress2 --features speedy -o s.svg --folded s.folded
check_contains "default args from flamegraph.toml" out "stress2: 5 rounds"
# the feature decides what is compiled; whether the few samples a short run
# takes land in the hash is chance, so the binary is checked, not the graph
bin=proj/build/flamegraph/release/stress2
nm "$bin" > syms.txt
check_contains "feature mapped to ENABLE_FAST_HASH" syms.txt " hash_fast_mix$"
check_contains "[cmake] args configured" proj/build/flamegraph/release/CMakeCache.txt "^FROM_FLAMEGRAPH_TOML:.*=yes$"
check_exit "without the feature" 0 fgb --bin stress2 -o n.svg --folded n.folded -- --rounds 3
check_contains "trailing args after the defaults" out "stress2: 3 rounds"
nm "$bin" > syms.txt
check_not_contains "feature off again" syms.txt " hash_fast_mix$"
check_not_contains "feature off again: graph" n.folded "hash_fast_mix"
check_exit "--bench wordfreq" 0 fgb --bench wordfreq -o w.svg --folded w.folded
check_contains "bench graph" w.folded "count_words"
# a table naming a target CMake does not have
printf '[package]\nname = "stress"\n[[bin]]\nname = "nosuch"\n' > proj/flamegraph.toml
check_exit "unknown override" 1 fgb --list
check_contains "unknown override named" err "names bin 'nosuch', but the CMake project has no"
finish
