/* Folded stacks as a speedscope document: frames are numbered in order of
 * first appearance, each stack becomes one weighted sample. Counts stay
 * exact (fg_count), as in the SVG. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "flamegraph/profile.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/banned.h"

static void json_string(fg_strbuf *sb, const char *s, size_t len)
{
	size_t i;

	fg_strbuf_addch(sb, '"');
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			fg_strbuf_addch(sb, '\\');
			fg_strbuf_addch(sb, (char)c);
		} else if (c < 0x20) {
			fg_strbuf_addf(sb, "\\u%04x", c);
		} else {
			fg_strbuf_addch(sb, (char)c);
		}
	}
	fg_strbuf_addch(sb, '"');
}

typedef struct frames {
	fg_strmap map;       /* name -> index + 1 */
	fg_strbuf json;      /* {"name":...},... */
	size_t n;
} frames;

static long long frame_index(frames *f, const char *name, size_t len)
{
	fg_strmap_entry *e = fg_strmap_put(&f->map, name, len);

	if (!e)
		return -1;
	if (!e->value.u) {
		e->value.u = ++f->n;
		fg_strbuf_addstr(&f->json, f->n > 1 ? ",{\"name\":" : "{\"name\":");
		json_string(&f->json, name, len);
		fg_strbuf_addch(&f->json, '}');
	}
	return (long long)e->value.u - 1;
}

typedef struct builder {
	frames f;
	fg_strbuf samples, weights;
	fg_count total;
} builder;

/* A count as JSON: whole samples, or a decimal with its exact fraction. */
static void add_count(fg_strbuf *sb, fg_count c)
{
	char frac[24];
	size_t n;

	if (!c.frac) {
		fg_strbuf_addf(sb, "%llu", (unsigned long long)c.n);
		return;
	}
	snprintf(frac, sizeof(frac), "%018llu", (unsigned long long)c.frac);
	for (n = 18; n > 1 && frac[n - 1] == '0'; n--)
		;
	fg_strbuf_addf(sb, "%llu.%.*s", (unsigned long long)c.n, (int)n, frac);
}

static void count_sum(fg_count *sum, fg_count c)
{
	sum->n += c.n;
	sum->frac += c.frac;
	if (sum->frac >= FG_COUNT_FRAC_ONE) {
		sum->frac -= FG_COUNT_FRAC_ONE;
		sum->n++;
	}
}

/* One stack into a sample ("[0,1,2]") and its weight. */
static int add_stack(builder *b, const char *stack, size_t len, fg_count count)
{
	const char *p = stack, *end = stack + len;
	bool first = true;

	fg_strbuf_addstr(&b->samples, b->samples.len ? ",[" : "[");
	while (p < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		size_t n = semi ? (size_t)(semi - p) : (size_t)(end - p);
		long long idx = frame_index(&b->f, p, n);
		if (idx < 0)
			return FG_ENOMEM;
		fg_strbuf_addf(&b->samples, first ? "%lld" : ",%lld", idx);
		first = false;
		p += n + (semi ? 1 : 0);
	}
	fg_strbuf_addch(&b->samples, ']');
	if (b->weights.len)
		fg_strbuf_addch(&b->weights, ',');
	add_count(&b->weights, count);
	count_sum(&b->total, count);
	return 0;
}

static int add_sorted(void *ctx, const char *stack, size_t len, fg_count count, fg_count before)
{
	(void)before;
	return add_stack(ctx, stack, len, count);
}

/* A flame chart's stacks stay in time order (whole samples per run). */
static int add_in_order(builder *b, const fg_folded *stacks)
{
	fg_folded_list *l = NULL;
	int err = fg_folded_list_new(&l, stacks, FG_FOLDED_INPUT_ORDER);

	for (size_t i = 0; !err && i < fg_folded_list_len(l); i++) {
		const fg_folded_stack *st = fg_folded_list_at(l, i);
		err = add_stack(b, st->stack, st->len, (fg_count){ st->count, 0 });
	}
	fg_folded_list_free(l);
	return err;
}

/* "metadata":{"git":{...}}, for a profile that says where its code came from */
static void git_metadata(fg_strbuf *doc, const fg_git_info *git)
{
	fg_strbuf_addstr(doc, ",\"metadata\":{\"git\":{\"branch\":");
	json_string(doc, git->branch ? git->branch : "", git->branch ? strlen(git->branch) : 0);
	fg_strbuf_addstr(doc, ",\"commit\":");
	json_string(doc, git->commit, strlen(git->commit));
	fg_strbuf_addf(doc, ",\"dirty\":%s}}", git->dirty ? "true" : "false");
}

int fg_speedscope_write(FILE *out, const char *name, const fg_folded *stacks,
			const fg_git_info *git)
{
	builder b = { { FG_STRMAP_INIT, FG_STRBUF_INIT, 0 }, FG_STRBUF_INIT, FG_STRBUF_INIT, { 0, 0 } };
	fg_strbuf doc = FG_STRBUF_INIT;
	int err;

	err = fg_folded_keeps_order(stacks) ? add_in_order(&b, stacks) :
	      fg_folded_foreach(stacks, add_sorted, &b);
	if (err)
		goto done;
	fg_strbuf_addstr(&doc, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
			 "\"shared\":{\"frames\":[");
	fg_strbuf_add(&doc, b.f.json.buf, b.f.json.len);
	fg_strbuf_addstr(&doc, "]},\"profiles\":[{\"type\":\"sampled\",\"name\":");
	json_string(&doc, name, strlen(name));
	fg_strbuf_addstr(&doc, ",\"unit\":\"none\",\"startValue\":0,\"endValue\":");
	add_count(&doc, b.total);
	fg_strbuf_addstr(&doc, ",\"samples\":[");
	if (fwrite(doc.buf, 1, doc.len, out) != doc.len ||
	    fwrite(b.samples.buf, 1, b.samples.len, out) != b.samples.len) {
		err = fg_error_set(FG_EIO, "cannot write the JSON output: %s", strerror(errno));
		goto done;
	}
	fg_strbuf_reset(&doc);
	fg_strbuf_addstr(&doc, "],\"weights\":[");
	fg_strbuf_add(&doc, b.weights.buf, b.weights.len);
	fg_strbuf_addstr(&doc, "]}],\"name\":");
	json_string(&doc, name, strlen(name));
	if (git)
		git_metadata(&doc, git);
	fg_strbuf_addstr(&doc, ",\"activeProfileIndex\":0,\"exporter\":\"flamegraph " FG_VERSION "\"}\n");
	if (fwrite(doc.buf, 1, doc.len, out) != doc.len)
		err = fg_error_set(FG_EIO, "cannot write the JSON output: %s", strerror(errno));
done:
	fg_strmap_release(&b.f.map);
	fg_strbuf_release(&b.f.json);
	fg_strbuf_release(&b.samples);
	fg_strbuf_release(&b.weights);
	fg_strbuf_release(&doc);
	return err;
}

int fg_speedscope_write_folded(FILE *out, const char *name, const char *text, size_t len,
			       const fg_git_info *git)
{
	fg_folded *f = NULL;
	int err;

	if (!(err = fg_folded_new(&f)) && !(err = fg_folded_feed(f, text, len)) &&
	    !(err = fg_folded_finish(f)))
		err = fg_speedscope_write(out, name, f, git);
	fg_folded_free(f);
	return err;
}
