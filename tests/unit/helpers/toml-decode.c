/* toml-decode: TOML on stdin -> the toml-test "tagged JSON" on stdout.
 * Exit 0 on success; on a parse error the file:line:col message goes to
 * stderr and the exit code is 1.
 *
 * The JSON is written by hand rather than through cJSON because TOML keys
 * and strings may hold U+0000, which cJSON's NUL-terminated strings would
 * cut short (toml-test checks exactly that). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "flamegraph/error.h"
#include "lib/project/toml/toml.h"
#include "util/input.h"
#include "util/strbuf.h"

static void put_json_string(fg_strbuf *out, const char *s, size_t len)
{
	size_t i;

	fg_strbuf_addch(out, '"');
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			fg_strbuf_addch(out, '\\');
			fg_strbuf_addch(out, (char)c);
		} else if (c < 0x20 || c == 0x7f) {
			fg_strbuf_addf(out, "\\u%04x", c);
		} else {
			fg_strbuf_addch(out, (char)c);
		}
	}
	fg_strbuf_addch(out, '"');
}

static void put_tagged(fg_strbuf *out, const char *type, const char *value)
{
	fg_strbuf_addf(out, "{\"type\":\"%s\",\"value\":", type);
	put_json_string(out, value, strlen(value));
	fg_strbuf_addch(out, '}');
}

static void put_value(fg_strbuf *out, const fg_toml_value *v)
{
	static const char *const tags[] = {
		[FG_TOML_DATETIME] = "datetime",
		[FG_TOML_DATETIME_LOCAL] = "datetime-local",
		[FG_TOML_DATE_LOCAL] = "date-local",
		[FG_TOML_TIME_LOCAL] = "time-local",
	};
	const fg_toml_value *item;
	const char *key, *s;
	char num[64];
	int64_t i64;
	size_t i, len;
	double d;
	bool b;

	switch (fg_toml_type(v)) {
	case FG_TOML_TABLE:
		fg_strbuf_addch(out, '{');
		for (i = 0; (key = fg_toml_table_key(v, i, &item, &len)); i++) {
			if (i)
				fg_strbuf_addch(out, ',');
			put_json_string(out, key, len);
			fg_strbuf_addch(out, ':');
			put_value(out, item);
		}
		fg_strbuf_addch(out, '}');
		break;
	case FG_TOML_ARRAY:
		fg_strbuf_addch(out, '[');
		for (i = 0; (item = fg_toml_array_at(v, i)); i++) {
			if (i)
				fg_strbuf_addch(out, ',');
			put_value(out, item);
		}
		fg_strbuf_addch(out, ']');
		break;
	case FG_TOML_STRING:
		s = fg_toml_string(v, &len);
		fg_strbuf_addstr(out, "{\"type\":\"string\",\"value\":");
		put_json_string(out, s, len);
		fg_strbuf_addch(out, '}');
		break;
	case FG_TOML_INTEGER:
		fg_toml_int(v, &i64);
		snprintf(num, sizeof(num), "%" PRId64, i64);
		put_tagged(out, "integer", num);
		break;
	case FG_TOML_FLOAT:
		fg_toml_float(v, &d);
		if (isnan(d))
			snprintf(num, sizeof(num), "nan");
		else if (isinf(d))
			snprintf(num, sizeof(num), "%sinf", d < 0 ? "-" : "");
		else
			snprintf(num, sizeof(num), "%.17g", d);
		put_tagged(out, "float", num);
		break;
	case FG_TOML_BOOL:
		fg_toml_bool(v, &b);
		put_tagged(out, "bool", b ? "true" : "false");
		break;
	default:
		put_tagged(out, tags[fg_toml_type(v)], fg_toml_datetime(v));
		break;
	}
}

int main(void)
{
	fg_strbuf in = FG_STRBUF_INIT, out = FG_STRBUF_INIT;
	fg_input *input = NULL;
	fg_toml *doc = NULL;
	char buf[65536];
	ssize_t n;
	int rc = 1;

	if (fg_input_open(&input, NULL) < 0)
		goto fail;
	while ((n = fg_input_read(input, buf, sizeof(buf))) > 0)
		if (fg_strbuf_add(&in, buf, (size_t)n) < 0)
			goto fail;
	if (n < 0 || fg_toml_parse(&doc, in.buf, in.len, "<stdin>") < 0)
		goto fail;
	put_value(&out, fg_toml_root(doc));
	fg_strbuf_addch(&out, '\n');
	fwrite(out.buf, 1, out.len, stdout);
	rc = 0;
	goto done;
fail:
	fprintf(stderr, "toml-decode: error: %s\n", fg_error_last());
done:
	fg_toml_free(doc);
	fg_input_close(input);
	fg_strbuf_release(&in);
	fg_strbuf_release(&out);
	return rc;
}
