# flamegraph-build on Debian's libwebp (CMake), from its unpacked source
# with no argument but the target: the programs it installs from its
# examples/ folder (cwebp, dwebp, img2webp, webpinfo, webpmux) are bins,
# and --bin cwebp profiles the encoder on a generated picture.
# ctest: LABELS thirdparty
require_perf
fetch_source libwebp || return 0
dir=$source_dir
cp -r "$dir" webp
snapshot() { find "$1" -mindepth 1 -path "$1/build" -prune -o -printf '%p %T@ %s %m\n' | LC_ALL=C sort; }
snapshot webp >before.txt
# a 1024x768 picture with edges and noise, as a binary PPM
python3 - <<'PY'
import random
random.seed(3)
w, h = 1024, 768
px = bytearray()
for y in range(h):
    for x in range(w):
        px += bytes(((x * 3 + y) % 256, (x ^ y) % 256, (x * y // 7 + random.randint(0, 40)) % 256))
open("img.ppm", "wb").write(b"P6\n%d %d\n255\n" % (w, h) + px)
PY

check_exit "--list" 0 sh -c "cd webp && flamegraph-build --list"
for prog in cwebp dwebp img2webp webpinfo webpmux; do
	check_contains "--list: $prog, installed from examples/, is a bin" out "^bin .*\b$prog\b"
done
check_not_contains "--list: no installed program under example" out "^example .*\bcwebp\b"
check_exit "--bin cwebp -- -q 80 -m 6 IMAGE -o /dev/null" 0 sh -c \
	"cd webp && flamegraph-build --bin cwebp -o ../cwebp.svg --folded ../cwebp.folded -- -q 80 -m 6 ../img.ppm -o /dev/null"
check_not_contains "--bin cwebp: no refusal, nothing guessed" err "not a bin|a guess"
check_contains "cwebp: the encoder under main" cwebp.folded ";main;.*WebPEncode;"
check_contains "cwebp: the encoder's token loop" cwebp.folded "VP8EncTokenLoop|VP8EncLoop"
cp cwebp.svg "$FG_ARTIFACTS/thirdparty-cwebp.svg" 2>/dev/null || true
snapshot webp >after.txt
check_same_file "libwebp: the user's tree is unchanged" before.txt after.txt
