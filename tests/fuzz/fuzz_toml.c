/* Fuzz target: the TOML reader. A document that parses is walked in full
 * through the public accessors (every key, element and scalar), so that
 * the tree it built is consistent; a document that fails must leave a
 * "FILE:LINE:COL: ..." message. */
#include "flamegraph/error.h"
#include "lib/project/toml/toml.h"
#include "fuzz_common.h"

/* Depth-first walk with an explicit stack: a hostile document may nest
 * tables and arrays deeper than the C stack would like. */
#define FZ_MAX_STACK 4096

static void fz_walk(const fg_toml_value *root)
{
	const fg_toml_value **stack = malloc(FZ_MAX_STACK * sizeof(*stack));
	size_t depth = 0, i, len;
	const fg_toml_value *v, *child;
	const char *key, *s;
	int64_t iv;
	double dv;
	bool bv;

	if (!stack)
		return;
	stack[depth++] = root;
	while (depth) {
		v = stack[--depth];
		(void)fg_toml_type_name(fg_toml_type(v));
		if (!fg_toml_line(v) || !fg_toml_column(v))
			fz_fail("a TOML value without a position");
		switch (fg_toml_type(v)) {
		case FG_TOML_TABLE:
			for (i = 0; (key = fg_toml_table_key(v, i, &child, &len)); i++) {
				if (fg_toml_get_n(v, key, len) != child)
					fz_fail("fg_toml_get_n does not find a listed key");
				if (depth < FZ_MAX_STACK)
					stack[depth++] = child;
			}
			if (i != fg_toml_table_size(v))
				fz_fail("fg_toml_table_size disagrees with its keys");
			break;
		case FG_TOML_ARRAY:
			for (i = 0; i < fg_toml_array_len(v); i++)
				if (depth < FZ_MAX_STACK)
					stack[depth++] = fg_toml_array_at(v, i);
			break;
		case FG_TOML_STRING:
			if (!(s = fg_toml_string(v, &len)) || s[len] != '\0')
				fz_fail("a TOML string that is not NUL-terminated");
			break;
		case FG_TOML_INTEGER:
			if (!fg_toml_int(v, &iv))
				fz_fail("an integer value without an integer");
			break;
		case FG_TOML_FLOAT:
			if (!fg_toml_float(v, &dv))
				fz_fail("a float value without a float");
			break;
		case FG_TOML_BOOL:
			if (!fg_toml_bool(v, &bv))
				fz_fail("a boolean value without a boolean");
			break;
		default:
			if (!fg_toml_datetime(v))
				fz_fail("a date-time value without its text");
			break;
		}
	}
	free(stack);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fg_toml *doc = NULL;
	int err = fg_toml_parse(&doc, (const char *)data, size, "fuzz.toml");

	if (err == 0) {
		fz_walk(fg_toml_root(doc));
		(void)fg_toml_table_get_path(fg_toml_root(doc), "profile.release");
		(void)fg_toml_table_get_path(fg_toml_root(doc), "features.\"fast-hash\"");
	} else if (err == FG_EPARSE && strncmp(fg_error_last(), "fuzz.toml:", 10)) {
		fz_fail("a TOML parse error without FILE:LINE:COL");
	}
	fg_toml_free(doc);
	fg_error_clear();
	return 0;
}
