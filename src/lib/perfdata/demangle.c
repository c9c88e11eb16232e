/* C++ names as perf shows them: demangled, without the return type of
 * template instances; the parameters stay (perf drops them; the
 * collapser drops them from both). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/perfdata/internal.h"
#include "util/banned.h"

/* C++ names are shown demangled, as perf shows them. The demangler is
 * the C++ runtime's own (__cxa_demangle of libstdc++, looked up when
 * first needed, so that C programs need no C++ runtime); without it the
 * names stay mangled. perf prints them without parameters; these keep
 * them, which the collapser removes the same way from both. */
typedef char *(*demangle_fn)(const char *name, char *buf, size_t *len, int *status);
static demangle_fn demangler;
static pthread_once_t demangler_once = PTHREAD_ONCE_INIT;

static void find_demangler(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	void *fn = h ? dlsym(h, "__cxa_demangle") : NULL;

	memcpy(&demangler, &fn, sizeof(fn));
}

/* Where the name of a demangled function starts: after the return type
 * that template instances carry ("long work::churn<long>(...)"), which
 * perf does not show. That is after the last space outside brackets
 * before the parameter list, unless it belongs to an operator's name
 * ("operator new", "operator int"). */
static size_t name_start(const char *d)
{
	size_t i, start = 0;
	int angle = 0, paren = 0;

	for (i = 0; d[i]; i++) {
		char c = d[i];
		if (i >= 8 && !memcmp(d + i - 8, "operator", 8)) {
			/* operator(), operator<, operator new: not brackets; the
			 * parameter list follows */
			if (d[i] == '(' && d[i + 1] == ')') {
				i++;
				continue;
			}
			break;
		}
		if (c == '<')
			angle++;
		else if (c == '>' && angle)
			angle--;
		else if (c == '(' && !angle && strncmp(d + i, "(anonymous namespace)", 21))
			break;
		else if (c == '(')
			paren++;
		else if (c == ')' && paren)
			paren--;
		else if (c == ' ' && !angle && !paren)
			start = i + 1;
	}
	return start;
}

const char *pd_demangle(fg_arena *arena, const char *name)
{
	char *d = NULL;
	const char *copy;
	size_t from;
	int status = -1;

	if (name[0] != '_' || name[1] != 'Z')
		return name;
	pthread_once(&demangler_once, find_demangler);
	if (demangler)
		d = demangler(name, NULL, NULL, &status);
	if (status == -1 && demangler) { /* its allocation failed */
		free(d);
		fg_nomem(strlen(name));
		return NULL;
	}
	if (!d || status) {
		free(d);
		return name;
	}
	from = name_start(d);
	copy = fg_arena_strndup(arena, d + from, strlen(d + from));
	free(d);
	return copy;
}

