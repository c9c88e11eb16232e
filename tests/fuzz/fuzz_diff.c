/* Fuzz target: diff-folded. The input is two folded profiles separated by
 * a line "====" (the first profile alone, diffed with itself, when there
 * is none); seeds are built that way by collect-seeds.sh. The diff is
 * written with and without --normalize / --strip-hex, and its output is
 * read back as differential folded input. */
#include "flamegraph/diff.h"
#include "flamegraph/error.h"
#include "fuzz_common.h"

static const char fz_sep[] = "\n====\n";

static fg_folded *fz_read(const uint8_t *data, size_t size)
{
	fg_folded *f = NULL;

	if (fg_folded_new(&f))
		return NULL;
	if (fg_folded_feed(f, (const char *)data, size) || fg_folded_finish(f)) {
		fg_folded_free(f);
		return NULL;
	}
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memmem(data, size, fz_sep, sizeof(fz_sep) - 1);
	size_t nbefore = sep ? (size_t)(sep - data) + 1 : size;
	const uint8_t *after = sep ? sep + sizeof(fz_sep) - 1 : data;
	size_t nafter = sep ? size - (size_t)(after - data) : size;
	uint64_t h = fg_hash_bytes(data, size);
	fg_diff_opts opts = FG_DIFF_OPTS_INIT;
	fg_folded *a = NULL, *b = NULL, *back = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *out = NULL;
	int err;

	if (!(a = fz_read(data, nbefore)) || !(b = fz_read(after, nafter)))
		goto done;
	opts.normalize = h & 1;
	opts.strip_hex = h & 2;
	if (!(out = open_memstream(&text, &len)))
		goto done;
	err = fg_diff_folded_write(a, b, &opts, out);
	if (fclose(out))
		fz_fail("cannot close the memory stream");
	out = NULL;
	if (err == 0 && len) {
		/* what diff-folded writes, the renderer must read without a
		 * single skipped line */
		if (!(back = fz_read((const uint8_t *)text, len)))
			goto done;
		if (fg_folded_skipped(back))
			fz_fail("diff-folded wrote a line its own reader skips");
		if (!fg_folded_is_differential(back))
			fz_fail("diff-folded output is not read back as differential");
	}
done:
	if (out)
		fclose(out);
	free(text);
	fg_folded_free(a);
	fg_folded_free(b);
	fg_folded_free(back);
	fg_error_clear();
	return 0;
}
