/* pprof export: the profile.proto message is built in memory (its size
 * follows the distinct stacks and frame names, never the recording), then
 * gzip-compressed to the output. Only the protobuf wire format's two
 * kinds we need are written: varints and length-delimited fields. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "flamegraph/error.h"
#include "flamegraph/pprof.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/version.h"
#include "util/banned.h"

/* profile.proto field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	LOCATION_ID = 1,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
};

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

struct enc {
	fg_strmap strings;   /* string -> index + 1 */
	fg_view *str;        /* the string table, by index (keys of `strings`) */
	size_t nstr, astr;
	fg_strmap funcs;     /* frame name -> function id (= its location id) */
	uint64_t *func_name; /* string index of function id i + 1 */
	size_t nfunc, afunc;
	fg_strbuf msg;       /* the Profile message */
	fg_strbuf sub, ids;  /* scratch for nested messages */
	uint64_t *stack;     /* location ids of one sample, leaf first */
	size_t nstack, astack;
	const fg_pprof_opts *o;
	fg_strmap companion; /* stack -> its count in o->companion */
	int err;
};

static void put_varint(struct enc *e, fg_strbuf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	do {
		tmp[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	if (!e->err)
		e->err = fg_strbuf_add(b, tmp, n);
}

static void put_tag(struct enc *e, fg_strbuf *b, unsigned field, unsigned wire)
{
	put_varint(e, b, (uint64_t)field << 3 | wire);
}

/* A varint field; 0 is proto3's default and is left out. */
static void put_uint(struct enc *e, fg_strbuf *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	put_tag(e, b, field, WIRE_VARINT);
	put_varint(e, b, v);
}

static void put_bytes(struct enc *e, fg_strbuf *b, unsigned field, const void *p, size_t len)
{
	put_tag(e, b, field, WIRE_LEN);
	put_varint(e, b, len);
	if (!e->err && len)
		e->err = fg_strbuf_add(b, p, len);
}

/* The index of s in the string table, added on first use. */
static uint64_t string_index(struct enc *e, const char *s, size_t len)
{
	fg_strmap_entry *en = fg_strmap_put(&e->strings, s, len);

	if (!en) {
		e->err = FG_ENOMEM;
		return 0;
	}
	if (!en->value.u) {
		if (FG_ALLOC_GROW(e->str, e->nstr + 1, e->astr, 256)) {
			e->err = FG_ENOMEM;
			return 0;
		}
		e->str[e->nstr] = fg_view_of(en->key, en->len);
		en->value.u = ++e->nstr;
	}
	return en->value.u - 1;
}

/* The function (and location) id of a frame name, made on first use. */
static uint64_t function_id(struct enc *e, const char *name, size_t len)
{
	fg_strmap_entry *en = fg_strmap_put(&e->funcs, name, len);
	uint64_t si;

	if (!en) {
		e->err = FG_ENOMEM;
		return 0;
	}
	if (en->value.u)
		return en->value.u;
	si = string_index(e, name, len);
	if (e->err || FG_ALLOC_GROW(e->func_name, e->nfunc + 1, e->afunc, 256)) {
		e->err = e->err ? e->err : FG_ENOMEM;
		return 0;
	}
	e->func_name[e->nfunc] = si;
	return en->value.u = ++e->nfunc;
}

static void put_value_type(struct enc *e, unsigned field, const char *type, const char *unit)
{
	fg_strbuf_reset(&e->sub);
	put_uint(e, &e->sub, VALUE_TYPE_TYPE, string_index(e, type, strlen(type)));
	put_uint(e, &e->sub, VALUE_TYPE_UNIT, string_index(e, unit, strlen(unit)));
	put_bytes(e, &e->msg, field, e->sub.buf, e->sub.len);
}

/* One Sample: the frames of the stack, root first in the text, become
 * location ids leaf first. */
static void put_sample(struct enc *e, const fg_folded_stack *st)
{
	const char *p = st->stack, *end = st->stack + st->len;
	int64_t value = st->count > INT64_MAX ? INT64_MAX : (int64_t)st->count;

	e->nstack = 0;
	while (p <= end && !e->err) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *stop = semi ? semi : end;

		if (FG_ALLOC_GROW(e->stack, e->nstack + 1, e->astack, 64)) {
			e->err = FG_ENOMEM;
			return;
		}
		e->stack[e->nstack++] = function_id(e, p, (size_t)(stop - p));
		p = stop + 1;
	}
	fg_strbuf_reset(&e->sub);
	fg_strbuf_reset(&e->ids);
	for (size_t i = e->nstack; i-- > 0;)
		put_varint(e, &e->ids, e->stack[i]);
	put_bytes(e, &e->sub, SAMPLE_LOCATION_ID, e->ids.buf, e->ids.len);
	fg_strbuf_reset(&e->ids);
	if (e->o->companion) {
		fg_strmap_entry *c = fg_strmap_get(&e->companion, st->stack, st->len);
		uint64_t cv = c ? c->value.u : 0;
		int64_t other = cv > INT64_MAX ? INT64_MAX : (int64_t)cv;
		put_varint(e, &e->ids, (uint64_t)(e->o->companion_first ? other : value));
		put_varint(e, &e->ids, (uint64_t)(e->o->companion_first ? value : other));
	} else {
		put_varint(e, &e->ids, (uint64_t)value);
	}
	put_bytes(e, &e->sub, SAMPLE_VALUE, e->ids.buf, e->ids.len);
	put_bytes(e, &e->msg, PROFILE_SAMPLE, e->sub.buf, e->sub.len);
}

/* Functions and their locations: one each per frame name, same id. */
static void put_functions(struct enc *e)
{
	fg_strbuf line = FG_STRBUF_INIT;

	for (size_t i = 0; i < e->nfunc && !e->err; i++) {
		uint64_t id = i + 1;

		fg_strbuf_reset(&e->sub);
		put_uint(e, &e->sub, FUNCTION_ID, id);
		put_uint(e, &e->sub, FUNCTION_NAME, e->func_name[i]);
		put_uint(e, &e->sub, FUNCTION_SYSTEM_NAME, e->func_name[i]);
		put_bytes(e, &e->msg, PROFILE_FUNCTION, e->sub.buf, e->sub.len);

		fg_strbuf_reset(&line);
		put_uint(e, &line, LINE_FUNCTION_ID, id);
		fg_strbuf_reset(&e->sub);
		put_uint(e, &e->sub, LOCATION_ID, id);
		put_bytes(e, &e->sub, LOCATION_LINE, line.buf, line.len);
		put_bytes(e, &e->msg, PROFILE_LOCATION, e->sub.buf, e->sub.len);
	}
	fg_strbuf_release(&line);
}

static void put_header(struct enc *e, const fg_pprof_opts *o)
{
	if (o->companion && o->companion_first)
		put_value_type(e, PROFILE_SAMPLE_TYPE, o->companion_type, o->companion_unit);
	put_value_type(e, PROFILE_SAMPLE_TYPE, o->sample_type, o->sample_unit);
	if (o->companion && !o->companion_first)
		put_value_type(e, PROFILE_SAMPLE_TYPE, o->companion_type, o->companion_unit);
	if (o->default_type)
		put_uint(e, &e->msg, PROFILE_DEFAULT_SAMPLE_TYPE,
			 string_index(e, o->default_type, strlen(o->default_type)));
	put_value_type(e, PROFILE_PERIOD_TYPE, o->sample_type, o->sample_unit);
	put_uint(e, &e->msg, PROFILE_PERIOD, o->period > 0 ? (uint64_t)o->period : 0);
	put_uint(e, &e->msg, PROFILE_TIME_NANOS, o->time_nanos > 0 ? (uint64_t)o->time_nanos : 0);
	put_uint(e, &e->msg, PROFILE_DURATION_NANOS, o->duration_nanos > 0 ? (uint64_t)o->duration_nanos : 0);
	if (o->comment) {
		uint64_t c = string_index(e, o->comment, strlen(o->comment));

		/* repeated int64, packed */
		fg_strbuf_reset(&e->ids);
		put_varint(e, &e->ids, c);
		put_bytes(e, &e->msg, PROFILE_COMMENT, e->ids.buf, e->ids.len);
	}
}

static int write_gzip(const char *data, size_t len, FILE *out)
{
	unsigned char buf[1 << 16];
	z_stream zs;
	int zr, err = 0;

	memset(&zs, 0, sizeof(zs));
	/* 16 + 15: a gzip wrapper around a 32 KB window, as gzip(1) writes */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return fg_error_set(FG_ENOMEM, "cannot start the gzip encoder");
	zs.next_in = (unsigned char *)data;
	zs.avail_in = (uInt)len; /* the message is far below 4 GB: checked by the caller */
	do {
		zs.next_out = buf;
		zs.avail_out = sizeof(buf);
		zr = deflate(&zs, Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			err = fg_error_set(FG_ENOMEM, "the gzip encoder failed");
			break;
		}
		size_t n = sizeof(buf) - zs.avail_out;
		if (n && fwrite(buf, 1, n, out) != n) {
			err = fg_error_set(FG_EIO, "cannot write the pprof profile: %s", strerror(errno));
			break;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&zs);
	return err;
}

static void enc_release(struct enc *e)
{
	fg_strmap_release(&e->strings);
	fg_strmap_release(&e->funcs);
	fg_strmap_release(&e->companion);
	free(e->str);
	free(e->func_name);
	free(e->stack);
	fg_strbuf_release(&e->msg);
	fg_strbuf_release(&e->sub);
	fg_strbuf_release(&e->ids);
}

static int index_companion(struct enc *e, const fg_folded *c)
{
	fg_folded_list *l = NULL;
	int err;

	if ((err = fg_folded_list_new(&l, c, FG_FOLDED_SORTED)))
		return err;
	for (size_t i = 0; i < fg_folded_list_len(l) && !err; i++) {
		const fg_folded_stack *st = fg_folded_list_at(l, i);
		fg_strmap_entry *en = fg_strmap_put(&e->companion, st->stack, st->len);
		if (!en)
			err = fg_error_set(FG_ENOMEM, "out of memory writing the pprof profile");
		else
			en->value.u += st->count;
	}
	fg_folded_list_free(l);
	if (err)
		fg_strmap_release(&e->companion);
	return err;
}

FG_OPTS_INIT_FUNCTION(fg_pprof_opts, FG_PPROF_OPTS_VERSION, FG_PPROF_OPTS_INIT)

int fg_pprof_write(const fg_folded *f, const fg_pprof_opts *opts, FILE *out)
{
	struct enc e = { .strings = FG_STRMAP_INIT, .funcs = FG_STRMAP_INIT, .msg = FG_STRBUF_INIT,
			 .sub = FG_STRBUF_INIT, .ids = FG_STRBUF_INIT, .o = opts,
			 .companion = FG_STRMAP_INIT };
	fg_folded_list *l = NULL;
	int err;

	if ((err = fg_opts_version_check("fg_pprof_opts", opts->version, FG_PPROF_OPTS_VERSION)))
		return err;
	if (!opts->sample_type || !*opts->sample_type || !opts->sample_unit || !*opts->sample_unit)
		return fg_error_set(FG_EINVAL, "a pprof profile needs a sample type and unit");
	if (opts->companion && (!opts->companion_type || !*opts->companion_type ||
				!opts->companion_unit || !*opts->companion_unit))
		return fg_error_set(FG_EINVAL, "a pprof profile's second value needs a sample type and unit");
	if (opts->companion && (err = index_companion(&e, opts->companion)))
		return err;
	if ((err = fg_folded_list_new(&l, f, FG_FOLDED_SORTED))) {
		enc_release(&e);
		return err;
	}
	string_index(&e, "", 0); /* pprof's string 0 is always "" */
	put_header(&e, opts);
	for (size_t i = 0; i < fg_folded_list_len(l) && !e.err; i++)
		put_sample(&e, fg_folded_list_at(l, i));
	put_functions(&e);
	for (size_t i = 0; i < e.nstr && !e.err; i++)
		put_bytes(&e, &e.msg, PROFILE_STRING_TABLE, e.str[i].ptr, e.str[i].len);
	if (e.err)
		err = fg_error_set(e.err, "out of memory writing the pprof profile");
	else if (e.msg.len > UINT32_MAX / 2)
		err = fg_error_set(FG_ELIMIT, "the pprof profile would be over 2 GB");
	else
		err = write_gzip(e.msg.buf, e.msg.len, out);
	fg_folded_list_free(l);
	enc_release(&e);
	return err;
}
