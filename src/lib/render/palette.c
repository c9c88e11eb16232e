/* Frame colours: flamegraph.pl's palettes (the same hue ranges), chosen by
 * name hash (--hash, --deterministic) or at random, the palette map file,
 * and the red/blue scale of differential graphs. */
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "palette.h"
#include "util/hashmap.h"
#include "util/input.h"
#include "util/outfile.h"
#include "util/strbuf.h"
#include "util/banned.h"

const char fg_render_palettes[] =
	"hot|mem|io|wakeup|java|js|perl|red|green|blue|aqua|yellow|purple|orange|rust|"
	"python|chain";

int fg_palette_parse(const char *name, enum fg_palette *out)
{
	static const char *const names[] = {
		"hot", "mem", "io", "wakeup", "java", "js", "perl", "red", "green",
		"blue", "aqua", "yellow", "purple", "orange", "rust", "python", "chain",
	};
	size_t i;

	if (!name) {
		*out = FG_PAL_HOT;
		return 0;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i])) {
			*out = (enum fg_palette)i;
			return 0;
		}
	return fg_error_set(FG_EINVAL, "unknown palette '%s' — use one of %s", name,
			    fg_render_palettes);
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && !memcmp(s + n - k, suffix, k);
}

static bool contains(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle)) != NULL;
}

/* The hue family of a frame under the language palettes, from the
 * annotations the collapsers add (_[k] kernel, _[j] JIT, _[i] inlined,
 * _[w] waker) and the shape of the name. */
static enum fg_palette family(enum fg_palette pal, const char *s, size_t n)
{
	if (pal == FG_PAL_WAKEUP)
		return FG_PAL_AQUA;
	if (pal == FG_PAL_CHAIN)
		/* off-CPU chains: the wakers (_[w]) apart from the waits */
		return ends_with(s, n, "_[w]") ? FG_PAL_AQUA : FG_PAL_BLUE;
	if (pal != FG_PAL_JAVA && pal != FG_PAL_JS && pal != FG_PAL_PERL &&
	    pal != FG_PAL_RUST && pal != FG_PAL_PYTHON)
		return pal;
	if (ends_with(s, n, "_[k]"))
		return FG_PAL_ORANGE;
	if (ends_with(s, n, "_[w]"))
		return FG_PAL_AQUA;
	switch (pal) {
	case FG_PAL_JAVA:
		if (ends_with(s, n, "_[j]"))
			return FG_PAL_GREEN;
		if (ends_with(s, n, "_[i]"))
			return FG_PAL_AQUA;
		if (contains(s, n, "::"))
			return FG_PAL_YELLOW;           /* C++ in the JVM */
		if (memchr(s, '/', n) || (memchr(s, '.', n) && !contains(s, n, ".so")))
			return FG_PAL_GREEN;            /* java/lang/Thread.run */
		return FG_PAL_RED;                      /* native */
	case FG_PAL_JS:
		if (ends_with(s, n, "_[j]"))
			return FG_PAL_GREEN;
		if (contains(s, n, "::"))
			return FG_PAL_YELLOW;
		if (memchr(s, '/', n) || contains(s, n, ".js"))
			return FG_PAL_GREEN;
		if (memchr(s, ':', n))
			return FG_PAL_AQUA;
		return FG_PAL_RED;
	case FG_PAL_PERL:
		if (contains(s, n, "::") || contains(s, n, ".pm"))
			return FG_PAL_GREEN;
		return FG_PAL_RED;
	case FG_PAL_PYTHON:
		/* py-spy / austin names: "func (path/file.py:line)" */
		if (contains(s, n, "site-packages") || contains(s, n, "dist-packages"))
			return FG_PAL_AQUA;             /* installed packages */
		if (contains(s, n, "<frozen") || contains(s, n, "<built-in") ||
		    contains(s, n, "/lib/python") || contains(s, n, "\\lib\\python"))
			return FG_PAL_YELLOW;           /* the standard library */
		if (contains(s, n, ".py"))
			return FG_PAL_RED;              /* the program's own code */
		return FG_PAL_ORANGE;                   /* native code */
	default: /* rust */
		if (!strncmp(s, "core::", n < 6 ? n : 6) || !strncmp(s, "std::", n < 5 ? n : 5) ||
		    !strncmp(s, "alloc::", n < 7 ? n : 7) || contains(s, n, "<core::") ||
		    contains(s, n, "<std::") || contains(s, n, "<alloc::"))
			return FG_PAL_ORANGE;           /* the standard library */
		if (contains(s, n, "::"))
			return FG_PAL_AQUA;             /* the program's crates */
		return FG_PAL_YELLOW;                   /* C: libc, the kernel */
	}
}

static uint32_t rgb(double r, double g, double b)
{
	return (uint32_t)r << 16 | (uint32_t)g << 8 | (uint32_t)b;
}

uint32_t fg_palette_color(enum fg_palette pal, const char *name, size_t n,
			  double v1, double v2, double v3)
{
	switch (family(pal, name, n)) {
	case FG_PAL_MEM:
		return rgb(0, 190 + 50 * v2, 210 * v1);
	case FG_PAL_IO:
		return rgb(80 + 60 * v1, 80 + 60 * v1, 190 + 55 * v2);
	case FG_PAL_RED:
		return rgb(200 + 55 * v1, 50 + 80 * v1, 50 + 80 * v1);
	case FG_PAL_GREEN:
		return rgb(50 + 60 * v1, 200 + 55 * v1, 50 + 60 * v1);
	case FG_PAL_BLUE:
		return rgb(80 + 60 * v1, 80 + 60 * v1, 205 + 50 * v1);
	case FG_PAL_AQUA:
		return rgb(50 + 60 * v1, 165 + 55 * v1, 165 + 55 * v1);
	case FG_PAL_YELLOW:
		return rgb(175 + 55 * v1, 175 + 55 * v1, 50 + 20 * v1);
	case FG_PAL_PURPLE:
		return rgb(190 + 65 * v1, 80 + 60 * v1, 190 + 65 * v1);
	case FG_PAL_ORANGE:
		return rgb(190 + 65 * v1, 90 + 65 * v1, 0);
	default: /* hot */
		return rgb(205 + 50 * v3, 230 * v1, 55 * v2);
	}
}

uint32_t fg_palette_diff_color(double delta, double maxdelta)
{
	double k;

	if (delta == 0 || maxdelta <= 0)
		return rgb(250, 250, 250);
	k = 210 * (maxdelta - (delta < 0 ? -delta : delta)) / maxdelta;
	if (k < 0)
		k = 0;
	return delta > 0 ? rgb(255, k, k) : rgb(k, k, 255);
}

/* "name->rgb(r,g,b)" lines. */
static int parse_rgb(fg_view v, uint32_t *out)
{
	unsigned long long c[3];
	const char *p, *e;
	int i;

	if (!fg_view_starts_with(v, "rgb(") || !fg_view_ends_with(v, ")"))
		return FG_EPARSE;
	p = v.ptr + 4;
	e = v.ptr + v.len - 1;
	for (i = 0; i < 3; i++) {
		const char *q = i < 2 ? memchr(p, ',', (size_t)(e - p)) : e;
		if (!q || fg_parse_u64(fg_view_trim(fg_view_of(p, (size_t)(q - p))), &c[i]) ||
		    c[i] > 255)
			return FG_EPARSE;
		p = q + 1;
	}
	*out = (uint32_t)(c[0] << 16 | c[1] << 8 | c[2]);
	return 0;
}

int fg_palette_map_load(fg_strmap *map, const char *path)
{
	char *data = NULL, *p, *e, *nl;
	size_t len, lineno = 0;
	int err;

	if ((err = fg_read_file(path, &data, &len))) {
		if (err == FG_ENOTFOUND) {
			fg_error_clear();
			return 0; /* written at the end */
		}
		return err;
	}
	for (p = data, e = data + len; p < e; p = nl + 1) {
		fg_view line, val;
		const char *arrow;
		fg_strmap_entry *ent;
		uint32_t c;

		if (!(nl = memchr(p, '\n', (size_t)(e - p))))
			nl = e;
		lineno++;
		line = fg_view_trim(fg_view_of(p, (size_t)(nl - p)));
		if (!line.len)
			continue;
		arrow = memmem(line.ptr, line.len, "->", 2);
		/* the last "->": names may contain it (operator->) */
		while (arrow && memmem(arrow + 2, (size_t)(line.ptr + line.len - arrow - 2), "->", 2))
			arrow = memmem(arrow + 2, (size_t)(line.ptr + line.len - arrow - 2), "->", 2);
		val = arrow ? fg_view_of(arrow + 2, (size_t)(line.ptr + line.len - arrow - 2))
			    : fg_view_of("", 0);
		if (!arrow || parse_rgb(val, &c)) {
			err = fg_error_set(FG_EPARSE, "%s:%zu: not a 'name->rgb(r,g,b)' line — fix or delete the palette map",
					   path, lineno);
			goto done;
		}
		if (!(ent = fg_strmap_put(map, line.ptr, (size_t)(arrow - line.ptr)))) {
			err = FG_ENOMEM;
			goto done;
		}
		ent->value.u = FG_PALETTE_SET | c;
	}
done:
	free(data);
	return err;
}

int fg_palette_map_save(const fg_strmap *map, const char *path)
{
	fg_strmap_entry **v = fg_strmap_sorted(map);
	fg_outfile *of = NULL;
	FILE *out;
	size_t i;
	int err;

	if (!v)
		return FG_ENOMEM;
	if ((err = fg_outfile_open(&of, path)))
		goto done;
	out = fg_outfile_stream(of);
	for (i = 0; i < map->count; i++) {
		uint32_t c = (uint32_t)v[i]->value.u;
		fwrite(v[i]->key, 1, v[i]->len, out);
		fprintf(out, "->rgb(%u,%u,%u)\n", c >> 16 & 255, c >> 8 & 255, c & 255);
	}
	err = fg_outfile_commit(of);
done:
	free(v);
	return err;
}
