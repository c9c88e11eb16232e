/* Folded stacks as a speedscope document: frames are numbered in order of
 * first appearance, each stack becomes one weighted sample. */
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

/* One folded line into a sample ("[0,1,2]") and its weight. */
static int add_line(frames *f, fg_view line, fg_strbuf *samples, fg_strbuf *weights, double *total)
{
	const char *sp = NULL, *p, *end;
	double count;
	bool first = true;

	line = fg_view_trim(line);
	for (p = line.ptr + line.len; p > line.ptr; p--)
		if (p[-1] == ' ') {
			sp = p - 1;
			break;
		}
	if (!sp || fg_parse_double(fg_view_of(sp + 1, (size_t)(line.ptr + line.len - sp - 1)), &count))
		return 0;
	fg_strbuf_addstr(samples, samples->len ? ",[" : "[");
	for (p = line.ptr, end = sp; p < end; ) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		size_t len = semi ? (size_t)(semi - p) : (size_t)(end - p);
		long long idx = frame_index(f, p, len);
		if (idx < 0)
			return FG_ENOMEM;
		fg_strbuf_addf(samples, first ? "%lld" : ",%lld", idx);
		first = false;
		p += len + (semi ? 1 : 0);
	}
	fg_strbuf_addch(samples, ']');
	fg_strbuf_addf(weights, weights->len ? ",%.17g" : "%.17g", count);
	*total += count;
	return 0;
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

int fg_speedscope_write_folded(FILE *out, const char *name, const char *text, size_t len,
			       const fg_git_info *git)
{
	frames f = { FG_STRMAP_INIT, FG_STRBUF_INIT, 0 };
	fg_strbuf samples = FG_STRBUF_INIT, weights = FG_STRBUF_INIT, doc = FG_STRBUF_INIT;
	const char *p = text, *end = text + len;
	double total = 0;
	int err = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if ((err = add_line(&f, fg_view_of(p, n), &samples, &weights, &total)))
			goto done;
		p += n + 1;
	}
	fg_strbuf_addstr(&doc, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
			 "\"shared\":{\"frames\":[");
	fg_strbuf_add(&doc, f.json.buf, f.json.len);
	fg_strbuf_addstr(&doc, "]},\"profiles\":[{\"type\":\"sampled\",\"name\":");
	json_string(&doc, name, strlen(name));
	fg_strbuf_addf(&doc, ",\"unit\":\"none\",\"startValue\":0,\"endValue\":%.17g,\"samples\":[",
		       total);
	if (fwrite(doc.buf, 1, doc.len, out) != doc.len ||
	    fwrite(samples.buf, 1, samples.len, out) != samples.len) {
		err = fg_error_set(FG_EIO, "cannot write the JSON output: %s", strerror(errno));
		goto done;
	}
	fg_strbuf_reset(&doc);
	fg_strbuf_addstr(&doc, "],\"weights\":[");
	fg_strbuf_add(&doc, weights.buf, weights.len);
	fg_strbuf_addstr(&doc, "]}],\"name\":");
	json_string(&doc, name, strlen(name));
	if (git)
		git_metadata(&doc, git);
	fg_strbuf_addstr(&doc, ",\"activeProfileIndex\":0,\"exporter\":\"flamegraph " FG_VERSION "\"}\n");
	if (fwrite(doc.buf, 1, doc.len, out) != doc.len)
		err = fg_error_set(FG_EIO, "cannot write the JSON output: %s", strerror(errno));
done:
	fg_strmap_release(&f.map);
	fg_strbuf_release(&f.json);
	fg_strbuf_release(&samples);
	fg_strbuf_release(&weights);
	fg_strbuf_release(&doc);
	return err;
}
