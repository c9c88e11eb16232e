# A gate per test: a flamegraph.toml project of two tests, "steady"
# (steady_work alone) and "slowing" (steady_work and slowing_work, about
# 80% and 20% of its time), under git. A commit makes slowing_work 30%
# slower: `--tests --compare HEAD~1 --fail-above 5` fails (exit 6) and its
# Markdown report names the slowing test and slowing_work first, the index
# and summary.json say which test grew; the steady test passes. The tree
# against itself passes, five gates in a row.
# ctest: RUN_SERIAL
# ctest: LABELS slow gate
require_perf
mkdir -p proj/src
cat > proj/flamegraph.toml <<'EOF'
[package]
name = "work"

[build]
system = "cc"
cflags = ["-Wall"]

[[test]]
name = "steady"
sources = ["src/steady.c", "src/work.c"]

[[test]]
name = "slowing"
sources = ["src/slowing.c", "src/work.c"]
EOF
cat > proj/src/work.c <<'EOF'
#include <stdint.h>
#define STEADY_WORK 4000
#define SLOWING_WORK 1000
static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	return x ^ (x >> 29);
}
__attribute__((noinline)) uint64_t steady_work(uint64_t seed)
{
	for (long i = 0; i < STEADY_WORK * 1000L; i++)
		seed = mix(seed + (uint64_t)i);
	return seed;
}
__attribute__((noinline)) uint64_t slowing_work(uint64_t seed)
{
	for (long i = 0; i < SLOWING_WORK * 1000L; i++)
		seed = mix(seed ^ (uint64_t)i);
	return seed;
}
EOF
cat > proj/src/steady.c <<'EOF'
#include <stdint.h>
#include <stdio.h>
uint64_t steady_work(uint64_t seed);
int main(void)
{
	uint64_t s = 1;
	for (int r = 0; r < 12; r++)
		s = steady_work(s);
	printf("steady %llu\n", (unsigned long long)(s & 0xff));
	return 0;
}
EOF
cat > proj/src/slowing.c <<'EOF'
#include <stdint.h>
#include <stdio.h>
uint64_t steady_work(uint64_t seed);
uint64_t slowing_work(uint64_t seed);
int main(void)
{
	uint64_t s = 1;
	for (int r = 0; r < 12; r++)
		s = slowing_work(steady_work(s));
	printf("slowing %llu\n", (unsigned long long)(s & 0xff));
	return 0;
}
EOF
gitc() { git -C proj -c user.email=t@example.com -c user.name=t "$@"; }
gitc init -q
gitc add .
gitc commit -qm "base"
fgb() { flamegraph-build --manifest-path "$PWD/proj" "$@"; }

# the tree against itself: five gates, all passed
for i in 1 2 3 4 5; do
	check_exit "unchanged, gate $i" 0 fgb --tests --compare HEAD --fail-above 5 --report md \
		--report-out self$i.md -o self$i
	check_contains "unchanged, gate $i: passed" self$i.md "^## gate passed: no function of the 2 tests grew by more than 5\.00%"
done
check_svgs_wellformed

# slowing_work 30% slower
sed -i 's/#define SLOWING_WORK 1000/#define SLOWING_WORK 1300/' proj/src/work.c
gitc commit -qam "slowing_work does 30% more work"
check_exit "slower" 6 fgb --tests --compare HEAD~1 --fail-above 5 --report md --report-out slow.md -o slow
check_contains "the report: one test grew" slow.md "^## gate failed: 1 of 2 tests grew by more than 5\.00%"
check_eq "the report: the slowing test and slowing_work first" "### test slowing: slowing_work" \
	"$(grep -m1 '^### ' slow.md | sed 's/ [-+][0-9.]*%$//')"
check_not_contains "the report: the steady test is not listed" slow.md "^### test steady"
python3 - slow/summary.json > gate.txt <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("rev", d["rev"], "fail_above", d["fail_above"], "gate_failed", d["totals"]["gate_failed"])
for t in d["tests"]:
    w = t["worst"]["function"] if t["worst"] else "-"
    print(t["name"], t["status"], t["gate_failures"] > 0, w, t["change"] > 0)
PY
check_contains "summary: the revision and the threshold" gate.txt "^rev HEAD~1 fail_above 5 gate_failed 1$"
check_contains "summary: slowing grew, by slowing_work" gate.txt "^slowing passed True slowing_work True$"
check_contains "summary: steady passed the gate" gate.txt "^steady passed False - "
check_contains "the index shows the change" slow/index.html "Change</button>"
check_contains "the index names the function" slow/index.html "<code>slowing_work</code>"
check_no_processes_left
