# The toml-test suite (TOML 1.0.0 subset listed in files-toml-1.0.0) against
# the toml-decode helper: every valid/ case must decode to JSON equal to its
# .json twin (compared semantically, as FORMAT.md says), every invalid/ case
# must be rejected with a file:line:col message.
suite="$FG_SHARED/conformance/toml-test"
decoder="$FG_TEST_BIN/toml-decode"
[ -x "$decoder" ] || { fail "toml-decode helper not built at $decoder"; return; }
[ -f "$suite/files-toml-1.0.0" ] || { fail "toml-test list not found in $suite"; return; }

python3 - "$suite" "$decoder" >report 2>&1 <<'EOF' || true
import json, math, re, subprocess, sys

suite, decoder = sys.argv[1], sys.argv[2]

def norm_datetime(s):
    s = s.upper().replace(' ', 'T', 1)
    if s.endswith('Z'):
        s = s[:-1] + '+00:00'
    m = re.match(r'^(.*\d\d:\d\d:\d\d)\.(\d+)(.*)$', s)
    if m:
        frac = m.group(2).rstrip('0')
        s = m.group(1) + ('.' + frac if frac else '') + m.group(3)
    return s

def norm_float(s):
    s = s.strip()
    if s.lstrip('+-') == 'nan':
        return 'nan'
    if s.lstrip('+-') == 'inf':
        return '-inf' if s.startswith('-') else 'inf'
    return float(s.replace('_', ''))

def tagged(x):
    return (isinstance(x, dict) and set(x) == {'type', 'value'}
            and isinstance(x['type'], str) and isinstance(x['value'], str))

def same(want, got, path):
    """Returns None when equal, else a description of the first difference."""
    if tagged(want):
        if not tagged(got):
            return f'{path}: expected a {want["type"]}, got {json.dumps(got)[:80]}'
        if want['type'] != got['type']:
            return f'{path}: type {got["type"]}, expected {want["type"]}'
        t, a, b = want['type'], want['value'], got['value']
        try:
            if t == 'integer':
                eq = int(a) == int(b)
            elif t == 'float':
                eq = norm_float(a) == norm_float(b)
            elif t.startswith('date') or t.startswith('time'):
                eq = norm_datetime(a) == norm_datetime(b)
            else:
                eq = a == b
        except ValueError:
            eq = False
        return None if eq else f'{path}: value {b!r}, expected {a!r}'
    if isinstance(want, dict):
        if not isinstance(got, dict) or tagged(got):
            return f'{path}: expected a table'
        if set(want) != set(got):
            return f'{path}: keys {sorted(got)}, expected {sorted(want)}'
        for k in want:
            d = same(want[k], got[k], f'{path}.{k}')
            if d:
                return d
        return None
    if isinstance(want, list):
        if not isinstance(got, list) or len(want) != len(got):
            return f'{path}: expected an array of {len(want)}'
        for i, (a, b) in enumerate(zip(want, got)):
            d = same(a, b, f'{path}[{i}]')
            if d:
                return d
        return None
    return f'{path}: unexpected JSON {json.dumps(want)[:60]}'

cases = [l.strip() for l in open(f'{suite}/files-toml-1.0.0') if l.strip()]
valid = [c for c in cases if c.startswith('valid/') and c.endswith('.toml')]
invalid = [c for c in cases if c.startswith('invalid/') and c.endswith('.toml')]
misses = []
located = 0
for case in valid:
    with open(f'{suite}/{case}', 'rb') as f:
        r = subprocess.run([decoder], stdin=f, capture_output=True, timeout=10)
    if r.returncode != 0:
        misses.append(f'{case}: rejected: {r.stderr.decode(errors="replace").strip()}')
        continue
    want = json.load(open(f'{suite}/{case[:-5]}.json', encoding='utf-8'))
    try:
        got = json.loads(r.stdout.decode('utf-8'))
    except ValueError as e:
        misses.append(f'{case}: output is not JSON: {e}')
        continue
    d = same(want, got, '$')
    if d:
        misses.append(f'{case}: {d}')
for case in invalid:
    with open(f'{suite}/{case}', 'rb') as f:
        r = subprocess.run([decoder], stdin=f, capture_output=True, timeout=10)
    err = r.stderr.decode(errors='replace')
    if r.returncode == 0:
        misses.append(f'{case}: accepted, should be rejected')
    elif r.returncode != 1 or 'Sanitizer' in err or 'runtime error' in err:
        misses.append(f'{case}: exit {r.returncode}: {err.strip()}')
    elif re.search(r'<stdin>:\d+:\d+: ', err):
        located += 1
    else:
        misses.append(f'{case}: error lacks file:line:col: {err.strip()}')
print(f'valid: {len(valid)} cases, invalid: {len(invalid)} cases, '
      f'errors with file:line:col: {located}, misses: {len(misses)}')
for m in misses:
    print('MISS', m)
EOF
cat report
check_contains "suite ran" report '^valid: 210 cases, invalid: 499 cases'
check_contains "every case passes" report 'misses: 0$'
check_not_contains "no case missed" report '^MISS'
