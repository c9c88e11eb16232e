/* flamegraph-diff-folded's library half: joins two merged profiles. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/diff.h"
#include "flamegraph/error.h"
#include "lib/fold/internal.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/version.h"
#include "util/banned.h"

/* Whole samples. Each side sums to at most its profile's total, which
 * fg_folded keeps below 2^64. */
struct pair {
	uint64_t before, after;
};

struct join {
	fg_strmap map;           /* stack -> index + 1 into pairs */
	struct pair *pairs;
	size_t n, alloc;
	fg_strbuf key;
	bool strip_hex;
};

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* "0x" followed by hex digits becomes "0x...". */
static int strip_hex(fg_strbuf *sb, const char *s, size_t n)
{
	size_t i = 0, run = 0;
	int err = 0;

	fg_strbuf_reset(sb);
	while (i < n) {
		if (i + 2 < n && s[i] == '0' && s[i + 1] == 'x' && is_hex(s[i + 2])) {
			err |= fg_strbuf_add(sb, s + run, i - run);
			err |= fg_strbuf_add(sb, "0x...", 5);
			i += 2;
			while (i < n && is_hex(s[i]))
				i++;
			run = i;
			continue;
		}
		i++;
	}
	err |= fg_strbuf_add(sb, s + run, n - run);
	return err ? FG_ENOMEM : 0;
}

static int add(struct join *j, const char *s, size_t n, uint64_t count, bool after)
{
	fg_strmap_entry *e;
	int err;

	if (j->strip_hex) {
		if ((err = strip_hex(&j->key, s, n)))
			return err;
		s = j->key.buf;
		n = j->key.len;
	}
	if (!(e = fg_strmap_put(&j->map, s, n)))
		return FG_ENOMEM;
	if (!e->value.u) {
		if (j->n == j->alloc) {
			size_t m = j->alloc ? j->alloc * 2 : 1024;
			struct pair *p = fg_realloc_array(j->pairs, m, sizeof(*p));
			if (!p)
				return FG_ENOMEM;
			j->pairs = p;
			j->alloc = m;
		}
		j->pairs[j->n].before = j->pairs[j->n].after = 0;
		e->value.u = ++j->n;
	}
	if (after)
		j->pairs[e->value.u - 1].after += count;
	else
		j->pairs[e->value.u - 1].before += count;
	return 0;
}

/* Adds every stack of f to the join (whole samples: the fraction of
 * each merged count is dropped), summing them in *total. */
static int join(struct join *j, const fg_folded *f, bool after, uint64_t *total)
{
	const char *key;
	size_t it = 0, len, idx;
	int err = 0;

	if ((err = fg_folded_settled(f)))
		return err;
	while (!err && fg_folded_next_stack(f, &it, &key, &len, &idx)) {
		uint64_t c = fg_folded_count_of(f, idx, false).n;
		*total += c;
		err = add(j, key, len, c, after);
	}
	return err;
}

/* A normalised count for printing. The readers keep each profile's total
 * below 2^64, but a normalised count can round past it: clamp, as the
 * conversion of a larger value is undefined. */
static unsigned long long to_u64(double v)
{
	if (!(v > 0))
		return 0;
	return v < 18446744073709551616.0 ? (unsigned long long)v : ULLONG_MAX;
}

FG_OPTS_INIT_FUNCTION(fg_diff_opts, FG_DIFF_OPTS_VERSION, FG_DIFF_OPTS_INIT)

int fg_diff_folded(fg_folded **out, const fg_folded *before, const fg_folded *after,
		   const fg_diff_opts *opts)
{
	fg_diff_opts defaults = FG_DIFF_OPTS_INIT;
	struct join j = { FG_STRMAP_INIT, NULL, 0, 0, FG_STRBUF_INIT, false };
	const fg_strmap_entry *e;
	fg_folded *d = NULL;
	uint64_t tb = 0, ta = 0;
	double scale = 1;
	size_t it = 0;
	int err;

	*out = NULL;
	if (opts &&
	    (err = fg_opts_version_check("fg_diff_opts", opts->version, FG_DIFF_OPTS_VERSION)))
		return err;
	if (!opts)
		opts = &defaults;
	j.strip_hex = opts->strip_hex;
	/* whole samples per stack, as the renderer counts them */
	if ((err = join(&j, before, false, &tb)) || (err = join(&j, after, true, &ta)))
		goto done;
	if (!j.n) {
		err = fg_error_set(FG_ENODATA, "both profiles are empty — nothing to compare");
		goto done;
	}
	if (opts->normalize && tb > 0)
		scale = (double)ta / (double)tb;
	if ((err = fg_folded_new(&d)))
		goto done;
	while (!err && (e = fg_strmap_next(&j.map, &it))) {
		const struct pair *p = &j.pairs[e->value.u - 1];
		fg_count b = { opts->normalize ? to_u64((double)p->before * scale + 1e-9) : p->before, 0 };
		err = fg_folded_add_diff(d, e->key, e->len, b, (fg_count){ p->after, 0 });
	}
	if (!err) {
		*out = d;
		d = NULL;
	}
done:
	fg_folded_free(d);
	free(j.pairs);
	fg_strmap_release(&j.map);
	fg_strbuf_release(&j.key);
	return err;
}

static int write_line(void *ctx, const char *stack, size_t len, fg_count count, fg_count before)
{
	FILE *out = ctx;

	fwrite(stack, 1, len, out);
	fprintf(out, " %llu %llu\n", (unsigned long long)before.n, (unsigned long long)count.n);
	return 0;
}

int fg_diff_folded_write_stacks(const fg_folded *diff, FILE *out)
{
	int err = fg_folded_foreach(diff, write_line, out);

	if (!err && (fflush(out) || ferror(out)))
		err = fg_error_set(FG_EIO, "could not write the differential stacks: %s",
				   strerror(errno));
	return err;
}

int fg_diff_folded_write(const fg_folded *before, const fg_folded *after,
			 const fg_diff_opts *opts, FILE *out)
{
	fg_folded *d = NULL;
	int err = fg_diff_folded(&d, before, after, opts);

	if (!err)
		err = fg_diff_folded_write_stacks(d, out);
	fg_folded_free(d);
	return err;
}
