/* pprof export: the gzip stream inflates, and the profile.proto message
 * decodes (with a wire-format reader of the test's own) to the stacks
 * given: string 0 empty, one function and location per frame name,
 * samples with their location ids leaf first and their counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <cmocka.h>

#include "flamegraph/error.h"
#include "flamegraph/folded.h"
#include "flamegraph/pprof.h"

/* ---- decoding ---- */

struct field {
	unsigned num, wire;
	uint64_t v;          /* varint */
	const unsigned char *p;
	size_t len;          /* length-delimited */
};

static uint64_t varint(const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (*p < end) {
		unsigned char b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		shift += 7;
		assert_true(shift < 64);
	}
	fail_msg("truncated varint");
	return 0;
}

/* The next field of the message [*p, end); false at its end. */
static bool next_field(const unsigned char **p, const unsigned char *end, struct field *f)
{
	uint64_t tag;

	if (*p >= end)
		return false;
	tag = varint(p, end);
	f->num = (unsigned)(tag >> 3);
	f->wire = (unsigned)(tag & 7);
	if (f->wire == 0) {
		f->v = varint(p, end);
	} else {
		assert_int_equal(f->wire, 2);
		f->len = (size_t)varint(p, end);
		assert_true(f->len <= (size_t)(end - *p));
		f->p = *p;
		*p += f->len;
	}
	return true;
}

#define MAXN 64

struct profile {
	char *strings[MAXN];
	size_t nstrings;
	uint64_t func_name[MAXN + 1]; /* by function id */
	uint64_t loc_func[MAXN + 1];  /* by location id */
	size_t nfuncs, nlocs;
	uint64_t sample_loc[MAXN][16];
	size_t sample_depth[MAXN];
	int64_t sample_value[MAXN];
	int64_t sample_value2[MAXN];  /* a second value, when there is one */
	size_t sample_nvalues[MAXN];
	size_t nsamples;
	uint64_t sample_type, sample_unit, period;
	uint64_t sample_type2, sample_unit2, default_type;
	size_t ntypes;
};

static uint64_t sub_varint(const struct field *f, unsigned num)
{
	const unsigned char *p = f->p, *end = f->p + f->len;
	struct field g;
	uint64_t v = 0;

	while (next_field(&p, end, &g))
		if (g.num == num && g.wire == 0)
			v = g.v;
	return v;
}

static void decode_sample(struct profile *pr, const struct field *f)
{
	const unsigned char *p = f->p, *end = f->p + f->len;
	struct field g;
	size_t s = pr->nsamples++;

	assert_true(s < MAXN);
	while (next_field(&p, end, &g)) {
		const unsigned char *q = g.p, *qend = g.p + g.len;
		if (g.num == 1) /* location ids, packed */
			while (q < qend)
				pr->sample_loc[s][pr->sample_depth[s]++] = varint(&q, qend);
		else if (g.num == 2) /* values, packed */
			while (q < qend) {
				int64_t v = (int64_t)varint(&q, qend);
				if (pr->sample_nvalues[s]++ == 0)
					pr->sample_value[s] = v;
				else
					pr->sample_value2[s] = v;
			}
	}
}

static void decode_location(struct profile *pr, const struct field *f)
{
	const unsigned char *p = f->p, *end = f->p + f->len;
	struct field g;
	uint64_t id = 0, func = 0;

	while (next_field(&p, end, &g)) {
		if (g.num == 1 && g.wire == 0)
			id = g.v;
		else if (g.num == 4)
			func = sub_varint(&g, 1);
	}
	assert_true(id >= 1 && id <= MAXN);
	pr->loc_func[id] = func;
	pr->nlocs++;
}

static void decode(struct profile *pr, const unsigned char *buf, size_t len)
{
	const unsigned char *p = buf, *end = buf + len;
	struct field f;

	memset(pr, 0, sizeof(*pr));
	while (next_field(&p, end, &f)) {
		switch (f.num) {
		case 1:
			if (pr->ntypes++ == 0) {
				pr->sample_type = sub_varint(&f, 1);
				pr->sample_unit = sub_varint(&f, 2);
			} else {
				pr->sample_type2 = sub_varint(&f, 1);
				pr->sample_unit2 = sub_varint(&f, 2);
			}
			break;
		case 14:
			pr->default_type = f.v;
			break;
		case 2:
			decode_sample(pr, &f);
			break;
		case 4:
			decode_location(pr, &f);
			break;
		case 5: {
			uint64_t id = sub_varint(&f, 1);
			assert_true(id >= 1 && id <= MAXN);
			pr->func_name[id] = sub_varint(&f, 2);
			pr->nfuncs++;
			break;
		}
		case 6:
			assert_true(pr->nstrings < MAXN);
			pr->strings[pr->nstrings] = strndup((const char *)f.p, f.len);
			pr->nstrings++;
			break;
		case 12:
			pr->period = f.v;
			break;
		}
	}
}

static void release(struct profile *pr)
{
	for (size_t i = 0; i < pr->nstrings; i++)
		free(pr->strings[i]);
}

/* The folded text back from a decoded sample: root first, ';'-joined. */
static void sample_text(const struct profile *pr, size_t s, char *out, size_t cap)
{
	out[0] = '\0';
	for (size_t i = pr->sample_depth[s]; i-- > 0;) {
		uint64_t loc = pr->sample_loc[s][i];
		const char *name = pr->strings[pr->func_name[pr->loc_func[loc]]];
		snprintf(out + strlen(out), cap - strlen(out), "%s%s", name, i ? ";" : "");
	}
}

/* Writes f with opts and decodes what was written. */
static void roundtrip(struct profile *pr, const fg_folded *f, const fg_pprof_opts *opts)
{
	char *gz = NULL;
	size_t gzlen = 0;
	FILE *mem = open_memstream(&gz, &gzlen);
	static unsigned char raw[1 << 16];
	z_stream zs;

	assert_non_null(mem);
	assert_int_equal(fg_pprof_write(f, opts, mem), 0);
	assert_int_equal(fclose(mem), 0);
	assert_true(gzlen > 18);
	assert_int_equal((unsigned char)gz[0], 0x1f); /* gzip magic */
	assert_int_equal((unsigned char)gz[1], 0x8b);
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(inflateInit2(&zs, 16 + 15), Z_OK);
	zs.next_in = (unsigned char *)gz;
	zs.avail_in = (uInt)gzlen;
	zs.next_out = raw;
	zs.avail_out = sizeof(raw);
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	decode(pr, raw, sizeof(raw) - zs.avail_out);
	inflateEnd(&zs);
	free(gz);
}

static fg_folded *folded_of(const char *text)
{
	fg_folded *f = NULL;

	assert_int_equal(fg_folded_new(&f), 0);
	assert_int_equal(fg_folded_feed(f, text, strlen(text)), 0);
	assert_int_equal(fg_folded_finish(f), 0);
	return f;
}

static void stacks_and_names(void **state)
{
	fg_folded *f = folded_of("main;a;spin 300\nmain;b;spin 100\nmain;a;spin 20\nmain 7\n");
	fg_pprof_opts o = FG_PPROF_OPTS_INIT;
	struct profile pr;
	char text[256];

	(void)state;
	o.sample_type = "cpu";
	o.sample_unit = "nanoseconds";
	o.period = 1000000;
	roundtrip(&pr, f, &o);
	assert_true(pr.nstrings > 0);
	assert_string_equal(pr.strings[0], "");
	assert_string_equal(pr.strings[pr.sample_type], "cpu");
	assert_string_equal(pr.strings[pr.sample_unit], "nanoseconds");
	assert_int_equal(pr.period, 1000000);
	/* one function and one location per distinct name: main a b spin */
	assert_int_equal(pr.nfuncs, 4);
	assert_int_equal(pr.nlocs, 4);
	/* one sample per distinct stack, merged counts, sorted as folded */
	assert_int_equal(pr.nsamples, 3);
	sample_text(&pr, 0, text, sizeof(text));
	assert_string_equal(text, "main");
	assert_int_equal(pr.sample_value[0], 7);
	sample_text(&pr, 1, text, sizeof(text));
	assert_string_equal(text, "main;a;spin");
	assert_int_equal(pr.sample_value[1], 320);
	/* leaf first: the first location of a sample is its leaf */
	assert_string_equal(pr.strings[pr.func_name[pr.loc_func[pr.sample_loc[1][0]]]], "spin");
	sample_text(&pr, 2, text, sizeof(text));
	assert_string_equal(text, "main;b;spin");
	assert_int_equal(pr.sample_value[2], 100);
	release(&pr);
	fg_folded_free(f);
}

static void counts_and_options(void **state)
{
	/* differential input: the "after" counts; a count past INT64_MAX is
	 * written as INT64_MAX */
	fg_folded *f = folded_of("x;y 5 9\nx;z 0 18446744073709551000\n");
	fg_pprof_opts o = FG_PPROF_OPTS_INIT;
	struct profile pr;

	(void)state;
	roundtrip(&pr, f, &o);
	assert_string_equal(pr.strings[pr.sample_type], "samples");
	assert_string_equal(pr.strings[pr.sample_unit], "count");
	assert_int_equal(pr.nsamples, 2);
	assert_int_equal(pr.sample_value[0], 9);
	assert_int_equal(pr.sample_value[1], INT64_MAX);
	release(&pr);

	/* no sample type: refused before anything is written */
	o.sample_type = "";
	assert_int_equal(fg_pprof_write(f, &o, stdout), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "sample type"));
	fg_folded_free(f);

	/* no stacks: a valid profile without samples */
	f = folded_of("");
	o.sample_type = "samples";
	roundtrip(&pr, f, &o);
	assert_int_equal(pr.nsamples, 0);
	assert_int_equal(pr.nfuncs, 0);
	release(&pr);
	fg_folded_free(f);
}

/* Two values per sample (a heap profile's objects and bytes): the
 * companion's count of each stack (0 where it has none), before or after
 * the stacks' own; the default sample type named. */
static void companion_values(void **state)
{
	fg_folded *f = folded_of("main;a 300\nmain;b 100\n");
	fg_folded *c = folded_of("main;a 3\nmain;x 9\n");
	fg_pprof_opts o = FG_PPROF_OPTS_INIT;
	struct profile pr;
	char text[256];

	(void)state;
	o.sample_type = "alloc_space";
	o.sample_unit = "bytes";
	o.companion = c;
	o.companion_type = "alloc_objects";
	o.companion_unit = "count";
	o.companion_first = true;
	o.default_type = "alloc_space";
	roundtrip(&pr, f, &o);
	assert_int_equal(pr.ntypes, 2);
	assert_string_equal(pr.strings[pr.sample_type], "alloc_objects");
	assert_string_equal(pr.strings[pr.sample_unit], "count");
	assert_string_equal(pr.strings[pr.sample_type2], "alloc_space");
	assert_string_equal(pr.strings[pr.sample_unit2], "bytes");
	assert_string_equal(pr.strings[pr.default_type], "alloc_space");
	/* the stacks are f's: main;x of the companion alone is not one */
	assert_int_equal(pr.nsamples, 2);
	sample_text(&pr, 0, text, sizeof(text));
	assert_string_equal(text, "main;a");
	assert_int_equal(pr.sample_nvalues[0], 2);
	assert_int_equal(pr.sample_value[0], 3);
	assert_int_equal(pr.sample_value2[0], 300);
	sample_text(&pr, 1, text, sizeof(text));
	assert_string_equal(text, "main;b");
	assert_int_equal(pr.sample_value[1], 0);
	assert_int_equal(pr.sample_value2[1], 100);
	release(&pr);

	/* after the stacks' own value */
	o.companion_first = false;
	roundtrip(&pr, f, &o);
	assert_string_equal(pr.strings[pr.sample_type], "alloc_space");
	assert_string_equal(pr.strings[pr.sample_type2], "alloc_objects");
	assert_int_equal(pr.sample_value[0], 300);
	assert_int_equal(pr.sample_value2[0], 3);
	release(&pr);

	/* a companion without its type is refused */
	o.companion_type = NULL;
	assert_int_equal(fg_pprof_write(f, &o, stdout), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "second value"));
	fg_error_clear();
	fg_folded_free(f);
	fg_folded_free(c);
}

static void write_error(void **state)
{
	fg_folded *f = folded_of("a;b 1\n");
	fg_pprof_opts o = FG_PPROF_OPTS_INIT;
	FILE *full = fopen("/dev/full", "w");

	(void)state;
	if (!full)
		skip();
	setvbuf(full, NULL, _IONBF, 0);
	assert_int_equal(fg_pprof_write(f, &o, full), FG_EIO);
	assert_non_null(strstr(fg_error_last(), "No space left on device"));
	fclose(full);
	fg_folded_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stacks_and_names),
		cmocka_unit_test(counts_and_options),
		cmocka_unit_test(companion_values),
		cmocka_unit_test(write_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
