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
#include "util/version.h"
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

/* One speedscope profile: its samples and their weights. */
typedef struct profile {
	const char *name;    /* interned in builder.roots, or the document's */
	size_t len;
	fg_strbuf samples, weights;
	fg_count total;
} profile;

typedef struct builder {
	frames f;
	bool per_root;       /* a profile per root frame */
	fg_strmap roots;     /* root name -> index + 1 into p */
	profile *p;
	size_t np, ap;
} builder;

static profile *new_profile(builder *b, const char *name, size_t len)
{
	profile *pr;

	if (fg_alloc_grow(&b->p, b->np + 1, &b->ap, sizeof(*b->p), 4))
		return NULL;
	pr = &b->p[b->np++];
	memset(pr, 0, sizeof(*pr));
	pr->name = name;
	pr->len = len;
	fg_strbuf_init(&pr->samples, 0);
	fg_strbuf_init(&pr->weights, 0);
	return pr;
}

/* The profile a stack goes to; with per_root, its root frame is taken
 * off the stack (*stack, *len) and names the profile. */
static profile *profile_of(builder *b, const char **stack, size_t *len)
{
	const char *semi;
	size_t n;
	fg_strmap_entry *e;

	if (!b->per_root)
		return &b->p[0];
	semi = memchr(*stack, ';', *len);
	n = semi ? (size_t)(semi - *stack) : *len;
	if (!(e = fg_strmap_put(&b->roots, *stack, n)))
		return NULL;
	if (!e->value.u) {
		if (!new_profile(b, e->key, e->len))
			return NULL;
		e->value.u = b->np;
	}
	*stack += semi ? n + 1 : n;
	*len -= semi ? n + 1 : n;
	return &b->p[e->value.u - 1];
}

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
	profile *pr = profile_of(b, &stack, &len);
	const char *p = stack, *end = stack + len;
	bool first = true;

	if (!pr)
		return FG_ENOMEM;
	fg_strbuf_addstr(&pr->samples, pr->samples.len ? ",[" : "[");
	while (p < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		size_t n = semi ? (size_t)(semi - p) : (size_t)(end - p);
		long long idx = frame_index(&b->f, p, n);
		if (idx < 0)
			return FG_ENOMEM;
		fg_strbuf_addf(&pr->samples, first ? "%lld" : ",%lld", idx);
		first = false;
		p += n + (semi ? 1 : 0);
	}
	fg_strbuf_addch(&pr->samples, ']');
	if (pr->weights.len)
		fg_strbuf_addch(&pr->weights, ',');
	add_count(&pr->weights, count);
	count_sum(&pr->total, count);
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

static int write_out(FILE *out, fg_strbuf *sb)
{
	if (fwrite(sb->buf, 1, sb->len, out) != sb->len)
		return fg_error_set(FG_EIO, "cannot write the JSON output: %s", strerror(errno));
	fg_strbuf_reset(sb);
	return 0;
}

/* "profiles":[...], a profile's samples written straight from its buffer. */
static int write_profiles(FILE *out, fg_strbuf *doc, const builder *b, const char *unit)
{
	size_t i;
	int err;

	fg_strbuf_addstr(doc, "\"profiles\":[");
	for (i = 0; i < b->np; i++) {
		const profile *pr = &b->p[i];
		fg_strbuf_addstr(doc, i ? ",{\"type\":\"sampled\",\"name\":" :
				 "{\"type\":\"sampled\",\"name\":");
		json_string(doc, pr->name, pr->len);
		fg_strbuf_addstr(doc, ",\"unit\":");
		json_string(doc, unit, strlen(unit));
		fg_strbuf_addstr(doc, ",\"startValue\":0,\"endValue\":");
		add_count(doc, pr->total);
		fg_strbuf_addstr(doc, ",\"samples\":[");
		if ((err = write_out(out, doc)))
			return err;
		if (fwrite(pr->samples.buf, 1, pr->samples.len, out) != pr->samples.len)
			return fg_error_set(FG_EIO, "cannot write the JSON output: %s", strerror(errno));
		fg_strbuf_addstr(doc, "],\"weights\":[");
		fg_strbuf_add(doc, pr->weights.buf, pr->weights.len);
		fg_strbuf_addstr(doc, "]}");
	}
	fg_strbuf_addstr(doc, "]");
	return 0;
}

FG_OPTS_INIT_FUNCTION(fg_speedscope_opts, FG_SPEEDSCOPE_OPTS_VERSION, FG_SPEEDSCOPE_OPTS_INIT)

int fg_speedscope_write_opts(FILE *out, const fg_speedscope_opts *o, const fg_folded *stacks)
{
	builder b = { .f = { FG_STRMAP_INIT, FG_STRBUF_INIT, 0 }, .roots = FG_STRMAP_INIT };
	fg_strbuf doc = FG_STRBUF_INIT;
	const char *name = o->name ? o->name : "profile";
	size_t i;
	int err;

	if (fg_opts_version_check("fg_speedscope_opts", o->version, FG_SPEEDSCOPE_OPTS_VERSION))
		return FG_EINVAL;
	b.per_root = o->per_root;
	if (!b.per_root && !new_profile(&b, name, strlen(name))) {
		err = FG_ENOMEM;
		goto done;
	}
	err = fg_folded_keeps_order(stacks) ? add_in_order(&b, stacks) :
	      fg_folded_foreach(stacks, add_sorted, &b);
	if (err)
		goto done;
	fg_strbuf_addstr(&doc, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
			 "\"shared\":{\"frames\":[");
	fg_strbuf_add(&doc, b.f.json.buf, b.f.json.len);
	fg_strbuf_addstr(&doc, "]},");
	if ((err = write_profiles(out, &doc, &b, o->unit ? o->unit : "none")))
		goto done;
	fg_strbuf_addstr(&doc, ",\"name\":");
	json_string(&doc, name, strlen(name));
	if (o->git)
		git_metadata(&doc, o->git);
	fg_strbuf_addstr(&doc, ",\"activeProfileIndex\":0,\"exporter\":\"flamegraph " FG_VERSION "\"}\n");
	err = write_out(out, &doc);
done:
	for (i = 0; i < b.np; i++) {
		fg_strbuf_release(&b.p[i].samples);
		fg_strbuf_release(&b.p[i].weights);
	}
	free(b.p);
	fg_strmap_release(&b.roots);
	fg_strmap_release(&b.f.map);
	fg_strbuf_release(&b.f.json);
	fg_strbuf_release(&doc);
	return err;
}

int fg_speedscope_write(FILE *out, const char *name, const fg_folded *stacks,
			const fg_git_info *git)
{
	fg_speedscope_opts o = FG_SPEEDSCOPE_OPTS_INIT;

	o.name = name;
	o.git = git;

	return fg_speedscope_write_opts(out, &o, stacks);
}

