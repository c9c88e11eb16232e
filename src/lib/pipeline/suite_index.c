/* What a suite's run leaves in its folder besides the graphs: index.html,
 * one page that opens from disk (its style and script inline, nothing
 * fetched but the graphs it links to), and summary.json for scripts.
 * Both are made in memory from the tests' records and written through
 * fg_outfile, so a failed write leaves the previous file whole. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "flamegraph/error.h"
#include "lib/pipeline/suite.h"
#include "util/outfile.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/banned.h"

#define N_STATUS (FG_SUITE_ERROR + 1)

/* The names of summary.json, in the order of enum fg_suite_status. */
static const char *const status_key[N_STATUS] = {
	"passed", "no-samples", "failed", "crashed", "interrupted", "not-built", "error",
};

/* What the index's table says for each. */
static const char *const status_text[N_STATUS] = {
	"passed", "too short to sample", "failed", "crashed", "interrupted", "not built", "error",
};

static size_t status_index(enum fg_suite_status st)
{
	return (unsigned)st < N_STATUS ? (size_t)st : FG_SUITE_ERROR;
}

struct totals {
	size_t gate_failed; /* tests with a function past the gate's threshold */
	size_t count[N_STATUS];
	double wall, cpu;
	bool has_cpu; /* some test weighed CPU time */
};

static void add_up(struct totals *t, const struct fg_suite_entry *tests, size_t n)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++) {
		t->count[status_index(tests[i].status)]++;
		t->gate_failed += tests[i].gate_failures > 0;
		t->wall += tests[i].wall_seconds;
		if (tests[i].cpu_seconds >= 0) {
			t->cpu += tests[i].cpu_seconds;
			t->has_cpu = true;
		}
	}
}

/* A test that ended by a signal shows it; one that never ran has no exit
 * status; any other exited with its code. */
static bool has_exit_code(const struct fg_suite_entry *e)
{
	return e->signal <= 0 && e->status != FG_SUITE_NOT_BUILT && e->status != FG_SUITE_ERROR;
}

static size_t hot_count(const struct fg_suite_entry *e)
{
	size_t i = 0;

	while (i < FG_SUITE_HOT && e->hot[i])
		i++;
	return i;
}

static int write_file(const char *dir, const char *name, const char *data, size_t len)
{
	fg_outfile *of = NULL;
	char *path = fg_path_join(dir, name);
	int err;

	if (!path)
		return FG_ENOMEM;
	if (!(err = fg_outfile_open(&of, path))) {
		if (len && fwrite(data, 1, len, fg_outfile_stream(of)) != len)
			err = fg_error_set(FG_EIO, "%s: write failed", path);
		else
			err = fg_outfile_commit(of);
		if (!err)
			of = NULL;
	}
	fg_outfile_abort(of);
	free(path);
	return err;
}

/* ---- summary.json ------------------------------------------------------ */

/* Each adds one member and says whether it could (cJSON allocates with
 * malloc: NULL is out of memory). */
static bool add_text(cJSON *o, const char *key, const char *v)
{
	return (v ? cJSON_AddStringToObject(o, key, v) : cJSON_AddNullToObject(o, key)) != NULL;
}

static bool add_number(cJSON *o, const char *key, double v)
{
	return cJSON_AddNumberToObject(o, key, v) != NULL;
}

static bool add_number_or_null(cJSON *o, const char *key, bool has, double v)
{
	return (has ? cJSON_AddNumberToObject(o, key, v) : cJSON_AddNullToObject(o, key)) != NULL;
}

static bool add_hot(cJSON *o, const struct fg_suite_entry *e)
{
	cJSON *hot = cJSON_AddArrayToObject(o, "hot");
	size_t i, n = hot_count(e);

	for (i = 0; hot && i < n; i++) {
		cJSON *h = cJSON_CreateObject();

		if (!h || !cJSON_AddItemToArray(hot, h)) {
			cJSON_Delete(h);
			return false;
		}
		if (!add_text(h, "function", e->hot[i]) || !add_number(h, "share", e->hot_share[i]))
			return false;
	}
	return hot != NULL;
}

/* FILE.EXT when the test's graph was written, else null. */
static bool add_output(cJSON *o, const char *key, const struct fg_suite_entry *e, const char *ext)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	bool ok;

	/* a comparison's graph is the differential one, with no folded
	 * stacks of its own */
	if (!e->has_graph || !e->file || (e->compared && strcmp(ext, ".svg")))
		return add_text(o, key, NULL);
	if (!strcmp(ext, ".svg") && e->html)
		ext = ".html";
	fg_strbuf_addf(&sb, "%s%s", e->file, ext);
	ok = !fg_strbuf_failed(&sb) && add_text(o, key, sb.buf);
	fg_strbuf_release(&sb);
	return ok;
}

/* A comparison's figures: the total's change, the gate's failures and
 * the function that grew most past the threshold (null when not
 * compared, not known or none). */
static bool add_comparison(cJSON *o, const struct fg_suite_entry *e)
{
	cJSON *w;

	if (!add_number_or_null(o, "change", e->compared && !isnan(e->change), e->change) ||
	    !add_number_or_null(o, "gate_failures", e->compared, (double)e->gate_failures))
		return false;
	if (!e->worst)
		return cJSON_AddNullToObject(o, "worst") != NULL;
	return (w = cJSON_AddObjectToObject(o, "worst")) && add_text(w, "function", e->worst) &&
	       add_number(w, "change", e->worst_change);
}

static bool add_test(cJSON *tests, const struct fg_suite_entry *e)
{
	cJSON *t = cJSON_CreateObject();

	if (!t || !cJSON_AddItemToArray(tests, t)) {
		cJSON_Delete(t);
		return false;
	}
	return add_text(t, "name", e->name) &&
	       add_text(t, "status", status_key[status_index(e->status)]) &&
	       add_output(t, "graph", e, ".svg") && add_output(t, "folded", e, ".folded") &&
	       add_number_or_null(t, "exit_code", has_exit_code(e), e->exit_code) &&
	       add_number_or_null(t, "signal", e->signal > 0, e->signal) &&
	       add_number(t, "wall_seconds", e->wall_seconds) &&
	       add_number_or_null(t, "cpu_seconds", e->cpu_seconds >= 0, e->cpu_seconds) &&
	       add_number(t, "samples", (double)e->samples) && add_hot(t, e) &&
	       add_text(t, "note", e->note) && add_comparison(t, e);
}

static bool add_totals(cJSON *o, const struct totals *t, size_t n)
{
	cJSON *j = cJSON_AddObjectToObject(o, "totals");

	return j && add_number(j, "tests", (double)n) &&
	       add_number(j, "passed", (double)t->count[FG_SUITE_PASSED]) &&
	       add_number(j, "failed",
			  (double)(t->count[FG_SUITE_FAILED] + t->count[FG_SUITE_CRASHED])) &&
	       add_number(j, "no_samples", (double)t->count[FG_SUITE_NO_SAMPLES]) &&
	       add_number(j, "gate_failed", (double)t->gate_failed) &&
	       add_number(j, "wall_seconds", t->wall) &&
	       add_number_or_null(j, "cpu_seconds", t->has_cpu, t->cpu);
}

static cJSON *summary_json(const struct fg_suite_summary *s, const struct fg_suite_entry *tests,
			   size_t n)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *list = NULL;
	struct totals t;
	size_t i;

	add_up(&t, tests, n);
	if (!root || !add_text(root, "project", s->project) || !add_text(root, "kind", s->kind) ||
	    !add_text(root, "pattern", s->pattern) ||
	    !cJSON_AddBoolToObject(root, "interrupted", s->interrupted) ||
	    !add_text(root, "merged", s->merged) || !add_text(root, "unit", s->unit) ||
	    !add_text(root, "rev", s->rev) ||
	    !add_number_or_null(root, "fail_above", s->rev && s->fail_above >= 0, s->fail_above) ||
	    !(list = cJSON_AddArrayToObject(root, "tests")))
		goto fail;
	for (i = 0; i < n; i++)
		if (!add_test(list, &tests[i]))
			goto fail;
	if (add_totals(root, &t, n))
		return root;
fail:
	cJSON_Delete(root);
	return NULL;
}

int fg_suite_write_summary(const char *dir, const struct fg_suite_summary *s,
			   const struct fg_suite_entry *tests, size_t n)
{
	cJSON *root = summary_json(s, tests, n);
	char *text = root ? cJSON_Print(root) : NULL;
	fg_strbuf sb = FG_STRBUF_INIT;
	int err;

	if (!text) {
		err = fg_nomem(0);
		goto done;
	}
	fg_strbuf_addstr(&sb, text);
	fg_strbuf_addch(&sb, '\n');
	if (!(err = fg_strbuf_check(&sb)))
		err = write_file(dir, "summary.json", sb.buf, sb.len);
done:
	fg_strbuf_release(&sb);
	cJSON_free(text);
	cJSON_Delete(root);
	return err;
}

/* ---- index.html -------------------------------------------------------- */

/* Every string of the data goes through here on its way into the page. */
static void html_escape(fg_strbuf *sb, const char *s)
{
	const char *run = s;

	for (; *s; s++) {
		const char *ent;

		switch (*s) {
		case '&': ent = "&amp;"; break;
		case '<': ent = "&lt;"; break;
		case '>': ent = "&gt;"; break;
		case '"': ent = "&quot;"; break;
		case '\'': ent = "&#39;"; break;
		default: continue;
		}
		fg_strbuf_add(sb, run, (size_t)(s - run));
		fg_strbuf_addstr(sb, ent);
		run = s + 1;
	}
	fg_strbuf_add(sb, run, (size_t)(s - run));
}

/* A file name as a relative URL: every byte but [A-Za-z0-9._~-]
 * percent-encoded, so a '/', '?', '#' or ':' of a name stays part of
 * the name. What it appends needs no HTML escaping. */
static void url_escape(fg_strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '_' || c == '~' || c == '-') {
			fg_strbuf_addch(sb, (char)c);
		} else {
			char pct[3] = {'%', hex[c >> 4], hex[c & 15]};

			fg_strbuf_add(sb, pct, sizeof(pct));
		}
	}
}

static const char page_style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}\n"
	"h1{font-size:1.4em;margin:0 0 .3em}\n"
	".facts{margin:.2em 0;color:#444}\n"
	".stopped{background:#fde2e2;border:1px solid #c62828;color:#8e0000;padding:.5em .8em;"
	"font-weight:bold;display:inline-block}\n"
	"table{border-collapse:collapse;margin-top:1em}\n"
	"th,td{padding:.25em .6em;border-bottom:1px solid #e3e3e3;text-align:left;"
	"vertical-align:top}\n"
	"th{background:#f3f3f3;position:sticky;top:0}\n"
	"th button{font:inherit;font-weight:bold;background:none;border:0;padding:0;cursor:pointer}\n"
	"th[aria-sort=ascending] button::after{content:\" \\25B2\"}\n"
	"th[aria-sort=descending] button::after{content:\" \\25BC\"}\n"
	"td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
	".st{padding:0 .4em;border-radius:3px;white-space:nowrap}\n"
	".st-passed{color:#1b5e20}\n"
	".st-no-samples{color:#666;font-style:italic}\n"
	".st-failed,.st-crashed,.st-interrupted,.st-not-built,.st-error{color:#fff;"
	"font-weight:bold}\n"
	".st-failed,.st-crashed{background:#c62828}\n"
	".st-interrupted{background:#ef6c00}\n"
	".st-not-built,.st-error{background:#6a1b9a}\n"
	"tr.bad td{background:#fff5f5}\n"
	".hot{margin:0;padding:0;list-style:none}\n"
	".share{color:#666}\n";

/* Sorts the table's rows by the clicked column: numbers by their
 * data-sort value, text by its words (test_2 before test_10); a second
 * click reverses. Rows are moved, never rebuilt. */
static const char page_script[] =
	"(function(){\n"
	"var table=document.getElementById('tests');\n"
	"var body=table.tBodies[0],heads=table.tHead.rows[0].cells;\n"
	"var words=new Intl.Collator(undefined,{numeric:true});\n"
	"var column=-1,up=true;\n"
	"function key(row,col,num){\n"
	" var c=row.cells[col],v=c.getAttribute('data-sort');\n"
	" if(v===null)v=c.textContent;\n"
	" return num?parseFloat(v):v;\n"
	"}\n"
	"function sortBy(col){\n"
	" var num=heads[col].getAttribute('data-type')==='num';\n"
	" up=col===column?!up:true;column=col;\n"
	" var dir=up?1:-1,rows=[],i;\n"
	" for(i=0;i<body.rows.length;i++){var r=body.rows[i];rows.push({r:r,k:key(r,col,num),i:i});}\n"
	" rows.sort(function(a,b){\n"
	"  var d=num?a.k-b.k:words.compare(a.k,b.k);\n"
	"  return d?d*dir:a.i-b.i;\n"
	" });\n"
	" var f=document.createDocumentFragment();\n"
	" for(i=0;i<rows.length;i++)f.appendChild(rows[i].r);\n"
	" body.appendChild(f);\n"
	" for(i=0;i<heads.length;i++)heads[i].setAttribute('aria-sort',"
	"i===col?(up?'ascending':'descending'):'none');\n"
	"}\n"
	"for(var i=0;i<heads.length;i++)(function(c){\n"
	" heads[c].addEventListener('click',function(){sortBy(c);});\n"
	"})(i);\n"
	"})();\n";

static void page_head(fg_strbuf *sb, const struct fg_suite_summary *s)
{
	fg_strbuf_addstr(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			     "<meta name=\"viewport\" content=\"width=device-width\">\n<title>");
	html_escape(sb, s->project ? s->project : "");
	fg_strbuf_addstr(sb, ": ");
	html_escape(sb, s->kind ? s->kind : "test");
	fg_strbuf_addstr(sb, " profiles</title>\n<style>\n");
	fg_strbuf_addstr(sb, page_style);
	fg_strbuf_addstr(sb, "</style>\n</head>\n<body>\n");
}

static void page_header(fg_strbuf *sb, const struct fg_suite_summary *s, const struct totals *t,
			size_t n)
{
	size_t i;

	fg_strbuf_addstr(sb, "<header>\n<h1>");
	html_escape(sb, s->project ? s->project : "");
	fg_strbuf_addstr(sb, "</h1>\n");
	if (s->interrupted)
		fg_strbuf_addstr(sb, "<p class=\"stopped\" role=\"alert\">Interrupted: the run "
				     "stopped before every test was profiled.</p>\n");
	fg_strbuf_addstr(sb, "<p class=\"facts\">Kind: ");
	html_escape(sb, s->kind ? s->kind : "");
	fg_strbuf_addstr(sb, " &middot; Selection: ");
	if (s->pattern) {
		fg_strbuf_addstr(sb, "<code>");
		html_escape(sb, s->pattern);
		fg_strbuf_addstr(sb, "</code>");
	} else {
		fg_strbuf_addstr(sb, "all");
	}
	if (s->rev) {
		fg_strbuf_addstr(sb, " &middot; Compared with: <code>");
		html_escape(sb, s->rev);
		fg_strbuf_addstr(sb, "</code>");
		if (s->fail_above >= 0)
			fg_strbuf_addf(sb, " (gate: %.2f%%, %zu failed)", s->fail_above, t->gate_failed);
	}
	fg_strbuf_addstr(sb, " &middot; Samples weigh: ");
	html_escape(sb, s->unit ? s->unit : "samples");
	fg_strbuf_addf(sb, "</p>\n<p class=\"facts\" id=\"totals\">%zu test%s", n, n == 1 ? "" : "s");
	for (i = 0; i < N_STATUS; i++)
		if (t->count[i])
			fg_strbuf_addf(sb, ", %zu %s", t->count[i], status_text[i]);
	fg_strbuf_addf(sb, " &middot; wall %.2f s", t->wall);
	if (t->has_cpu)
		fg_strbuf_addf(sb, " &middot; CPU %.2f s", t->cpu);
	fg_strbuf_addstr(sb, "</p>\n");
	if (s->merged) {
		fg_strbuf_addstr(sb, "<p class=\"facts\"><a id=\"merged\" href=\"");
		url_escape(sb, s->merged);
		fg_strbuf_addstr(sb, "\">Every test in one graph</a> (");
		html_escape(sb, s->merged);
		fg_strbuf_addstr(sb, ")</p>\n");
	}
	fg_strbuf_addstr(sb, "</header>\n");
}

static void table_head(fg_strbuf *sb, bool compared)
{
	static const struct {
		const char *title;
		bool num;
	} cols[] = {
		{"Test", false},     {"Status", true}, {"Exit", true},     {"Wall (s)", true},
		{"CPU (s)", true},   {"Samples", true}, {"Hottest", true}, {"Note", false},
	};
	size_t i;

	fg_strbuf_addstr(sb, "<table id=\"tests\">\n<thead><tr>");
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		fg_strbuf_addf(sb, "<th data-type=\"%s\" aria-sort=\"none\"><button type=\"button\">"
				   "%s</button></th>",
			       cols[i].num ? "num" : "text", cols[i].title);
	if (compared)
		fg_strbuf_addstr(sb, "<th data-type=\"num\" aria-sort=\"none\"><button "
				     "type=\"button\">Change</button></th>");
	fg_strbuf_addstr(sb, "</tr></thead>\n<tbody>\n");
}

static void cell_name(fg_strbuf *sb, const struct fg_suite_entry *e)
{
	fg_strbuf_addstr(sb, "<td>");
	if (e->has_graph && e->file) {
		fg_strbuf_addstr(sb, "<a href=\"");
		url_escape(sb, e->file);
		fg_strbuf_addstr(sb, e->html ? ".html\">" : ".svg\">");
		html_escape(sb, e->name ? e->name : e->file);
		fg_strbuf_addstr(sb, "</a>");
	} else {
		html_escape(sb, e->name ? e->name : "");
	}
	fg_strbuf_addstr(sb, "</td>");
}

static void cell_status(fg_strbuf *sb, const struct fg_suite_entry *e)
{
	size_t st = status_index(e->status);

	fg_strbuf_addf(sb, "<td data-sort=\"%zu\"><span class=\"st st-%s\">%s</span></td>", st,
		       status_key[st], status_text[st]);
}

/* Exits sort by code, signals after them (as a shell's 128+N), tests that
 * never ran first. */
static void cell_exit(fg_strbuf *sb, const struct fg_suite_entry *e)
{
	if (e->signal > 0)
		fg_strbuf_addf(sb, "<td class=\"num\" data-sort=\"%d\">signal %d</td>",
			       128 + e->signal, e->signal);
	else if (has_exit_code(e))
		fg_strbuf_addf(sb, "<td class=\"num\" data-sort=\"%d\">%d</td>", e->exit_code,
			       e->exit_code);
	else
		fg_strbuf_addstr(sb, "<td class=\"num\" data-sort=\"-1\">&mdash;</td>");
}

static void cell_seconds(fg_strbuf *sb, double v)
{
	if (v >= 0)
		fg_strbuf_addf(sb, "<td class=\"num\" data-sort=\"%.6f\">%.2f</td>", v, v);
	else
		fg_strbuf_addstr(sb, "<td class=\"num\" data-sort=\"-1\">&mdash;</td>");
}

static void cell_hot(fg_strbuf *sb, const struct fg_suite_entry *e)
{
	size_t i, n = hot_count(e);

	fg_strbuf_addf(sb, "<td data-sort=\"%.6f\">", n ? e->hot_share[0] : -1.0);
	if (n) {
		fg_strbuf_addstr(sb, "<ol class=\"hot\">");
		for (i = 0; i < n; i++) {
			fg_strbuf_addstr(sb, "<li>");
			html_escape(sb, e->hot[i]);
			fg_strbuf_addf(sb, " <span class=\"share\">%.1f%%</span></li>",
				       100.0 * e->hot_share[i]);
		}
		fg_strbuf_addstr(sb, "</ol>");
	}
	fg_strbuf_addstr(sb, "</td>");
}

/* A comparison: the total's change, and the function the gate failed
 * first. */
static void cell_change(fg_strbuf *sb, const struct fg_suite_entry *e)
{
	if (isnan(e->change)) {
		fg_strbuf_addstr(sb, "<td class=\"num\" data-sort=\"-1e300\">&mdash;</td>");
		return;
	}
	fg_strbuf_addf(sb, "<td class=\"num\" data-sort=\"%.6f\">%+.1f%%", e->change, e->change);
	if (e->gate_failures) {
		fg_strbuf_addf(sb, "<br><span class=\"st st-failed\">gate: %zu over</span>",
			       e->gate_failures);
		if (e->worst) {
			fg_strbuf_addstr(sb, " <code>");
			html_escape(sb, e->worst);
			fg_strbuf_addf(sb, "</code> %+.1f%%", e->worst_change);
		}
	}
	fg_strbuf_addstr(sb, "</td>");
}

static void table_row(fg_strbuf *sb, const struct fg_suite_entry *e, bool compared)
{
	bool bad = (e->status != FG_SUITE_PASSED && e->status != FG_SUITE_NO_SAMPLES) ||
		   e->gate_failures;

	fg_strbuf_addstr(sb, bad ? "<tr class=\"bad\">" : "<tr>");
	cell_name(sb, e);
	cell_status(sb, e);
	cell_exit(sb, e);
	cell_seconds(sb, e->wall_seconds);
	cell_seconds(sb, e->cpu_seconds);
	fg_strbuf_addf(sb, "<td class=\"num\">%" PRIu64 "</td>", e->samples);
	cell_hot(sb, e);
	fg_strbuf_addstr(sb, "<td>");
	html_escape(sb, e->note ? e->note : "");
	fg_strbuf_addstr(sb, "</td>");
	if (compared)
		cell_change(sb, e);
	fg_strbuf_addstr(sb, "</tr>\n");
}

int fg_suite_write_index(const char *dir, const struct fg_suite_summary *s,
			 const struct fg_suite_entry *tests, size_t n)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	struct totals t;
	size_t i;
	int err;

	add_up(&t, tests, n);
	page_head(&sb, s);
	page_header(&sb, s, &t, n);
	table_head(&sb, s->rev != NULL);
	for (i = 0; i < n; i++)
		table_row(&sb, &tests[i], s->rev != NULL);
	fg_strbuf_addstr(&sb, "</tbody>\n</table>\n<script>\n");
	fg_strbuf_addstr(&sb, page_script);
	fg_strbuf_addstr(&sb, "</script>\n</body>\n</html>\n");
	if (!(err = fg_strbuf_check(&sb)))
		err = write_file(dir, "index.html", sb.buf, sb.len);
	fg_strbuf_release(&sb);
	return err;
}
