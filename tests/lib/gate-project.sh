# Sourced by the regression gate's e2e tests: examples/gate copied into
# proj/ as a git repository with one commit (its id in $base), gitc to
# commit there, and fgb to run flamegraph-build on its phases program.
require_perf
cp -r "$FG_SRC/examples/gate" proj
gitc() { git -C proj -c user.email=t@example.com -c user.name=t "$@"; }
gitc init -q
gitc add .
gitc commit -qm "base"
base=$(gitc rev-parse HEAD)
fgb() { flamegraph-build --manifest-path "$PWD/proj" --bin phases "$@"; }
