/* The table-driven option parser shared by every program. One table row per
 * option gives its names, type, target and help; the same table produces
 * `--help`, usage errors and `--completions bash|zsh|fish`.
 *
 *   static const fg_option options[] = {
 *       FG_OPT_STRING('o', "output", &out, "FILE", "write the SVG to FILE"),
 *       FG_OPT_BOOL(0, "inverted", &inv, "draw an icicle graph"),
 *       FG_OPT_END(),
 *   };
 */
#ifndef FG_CLI_COMMON_OPTS_H
#define FG_CLI_COMMON_OPTS_H

#include <stdbool.h>
#include <stddef.h>

enum fg_opt_type {
	FG_OPT_END_ = 0,
	FG_OPT_GROUP_,    /* a heading in --help */
	FG_OPT_BOOL_,     /* bool *target = true */
	FG_OPT_STRING_,   /* const char **target = arg (last wins) */
	FG_OPT_LIST_,     /* fg_strlist *target gets each arg (repeatable; commas not split) */
	FG_OPT_INT_,      /* long long *target */
	FG_OPT_DOUBLE_,   /* double *target */
	FG_OPT_CALLBACK_, /* callback(opt, arg, target) */
};

enum {
	FG_OPTF_OPTARG = 1, /* argument optional: only as --name=value */
	FG_OPTF_HIDDEN = 2, /* accepted but not listed in --help */
	FG_OPTF_ALIAS = 4,  /* another program's spelling: listed by --help
			       under "Aliases", after the options, and
			       offered by the completions */
	FG_OPTF_OPTNUM = 8, /* with FG_OPTF_OPTARG: a number may also follow
			       as -zN or as the next argument (-z 3), as
			       cargo-flamegraph's -z takes it */
};

struct fg_option;
typedef int (*fg_opt_cb)(const struct fg_option *opt, const char *arg, void *target);

typedef struct fg_option {
	enum fg_opt_type type;
	char short_name;
	const char *long_name;
	void *target;
	const char *argname; /* NULL for flags */
	const char *help;
	unsigned flags;
	fg_opt_cb callback;
	const char *choices; /* "a|b|c": checked, and offered by completions */
	const char *names;   /* completions offer the program's own
				`--list-names NAMES` output (the project's
				target, feature or profile names) */
} fg_option;

/* A number macro as a string literal, for help texts that quote a
 * library default (FG_OPT_STR(FG_RECORD_DEFAULT_FREQ) is "997"). */
#define FG_OPT_STR_(x) #x
#define FG_OPT_STR(x) FG_OPT_STR_(x)

#define FG_OPT_END() { FG_OPT_END_, 0, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL }
#define FG_OPT_GROUP(title) { FG_OPT_GROUP_, 0, NULL, NULL, NULL, title, 0, NULL, NULL, NULL }
#define FG_OPT_BOOL(s, l, t, h) { FG_OPT_BOOL_, s, l, t, NULL, h, 0, NULL, NULL, NULL }
#define FG_OPT_STRING(s, l, t, a, h) { FG_OPT_STRING_, s, l, t, a, h, 0, NULL, NULL, NULL }
#define FG_OPT_CHOICE(s, l, t, a, choices, h) { FG_OPT_STRING_, s, l, t, a, h, 0, NULL, choices, NULL }
/* A string whose values completions take from `PROG --list-names names`. */
#define FG_OPT_NAMED(s, l, t, a, names, h) { FG_OPT_STRING_, s, l, t, a, h, 0, NULL, NULL, names }
#define FG_OPT_LIST(s, l, t, a, h) { FG_OPT_LIST_, s, l, t, a, h, 0, NULL, NULL, NULL }
#define FG_OPT_LIST_NAMED(s, l, t, a, names, h) { FG_OPT_LIST_, s, l, t, a, h, 0, NULL, NULL, names }
#define FG_OPT_INT(s, l, t, a, h) { FG_OPT_INT_, s, l, t, a, h, 0, NULL, NULL, NULL }
#define FG_OPT_DOUBLE(s, l, t, a, h) { FG_OPT_DOUBLE_, s, l, t, a, h, 0, NULL, NULL, NULL }
#define FG_OPT_CALLBACK(s, l, t, a, h, cb) { FG_OPT_CALLBACK_, s, l, t, a, h, 0, cb, NULL, NULL }

/* Alias rows (FG_OPTF_ALIAS): the help says what they stand for. */
#define FG_ALIAS_BOOL(s, l, t, h) { FG_OPT_BOOL_, s, l, t, NULL, h, FG_OPTF_ALIAS, NULL, NULL, NULL }
#define FG_ALIAS_STRING(s, l, t, a, h) { FG_OPT_STRING_, s, l, t, a, h, FG_OPTF_ALIAS, NULL, NULL, NULL }
#define FG_ALIAS_CHOICE(s, l, t, a, choices, h) { FG_OPT_STRING_, s, l, t, a, h, FG_OPTF_ALIAS, NULL, choices, NULL }
#define FG_ALIAS_INT(s, l, t, a, h) { FG_OPT_INT_, s, l, t, a, h, FG_OPTF_ALIAS, NULL, NULL, NULL }
#define FG_ALIAS_DOUBLE(s, l, t, a, h) { FG_OPT_DOUBLE_, s, l, t, a, h, FG_OPTF_ALIAS, NULL, NULL, NULL }
#define FG_ALIAS_CALLBACK(s, l, t, a, h, cb) { FG_OPT_CALLBACK_, s, l, t, a, h, FG_OPTF_ALIAS, cb, NULL, NULL }

/* A growable list of borrowed strings (the argv strings themselves). */
typedef struct fg_strlist {
	const char **items;
	size_t count, alloc;
} fg_strlist;
#define FG_STRLIST_INIT { NULL, 0, 0 }
int fg_strlist_push(fg_strlist *l, const char *s);
void fg_strlist_release(fg_strlist *l);
/* Appends the comma-separated parts of every item of in to out ("a,b" and
 * "c" give a, b, c; empty parts are dropped). The items are argv strings,
 * cut in place. -1 when out of memory. */
int fg_strlist_split_commas(fg_strlist *out, const fg_strlist *in);

/* A whole-number option value (FG_OPT_INT) as the unsigned field of a
 * library options struct. Only whether it fits is checked here: the
 * range that makes sense is the library's to check (fg_render_opts_check
 * and the like), once. Prints a usage error and returns -1 when it does
 * not fit. */
int fg_opt_to_unsigned(unsigned *out, long long v, const char *flag);

typedef struct fg_cli {
	const char *prog;      /* program name, as in messages */
	const char *usage;     /* "[OPTIONS] [FILE...]" */
	const char *summary;   /* one paragraph under the usage line */
	const char *footer;    /* text after the options (examples, env) */
	const fg_option *options;
	bool completions;      /* offer --completions bash|zsh|fish */
	bool stop_at_positional; /* the first non-option ends option parsing */
} fg_cli;

/* Results of fg_opts_parse. */
enum {
	FG_OPTS_OK = 0,    /* proceed */
	FG_OPTS_EXIT = 1,  /* --help/--version/--completions printed: exit 0 */
	FG_OPTS_USAGE = 2, /* a usage error was printed: exit 1 */
};

/* Parses argv[1..argc). Positional arguments are moved, in order, to
 * argv[0..*npos); *dashdash is the index among them of the first argument
 * that came after "--" (== *npos when there was no "--"). */
int fg_opts_parse(const fg_cli *cli, int argc, char **argv, int *npos, int *dashdash);

/* Prints --help to stdout. */
void fg_opts_help(const fg_cli *cli);
/* Prints a completion script for shell "bash", "zsh" or "fish" to stdout;
 * returns -1 for an unknown shell. */
int fg_opts_completions(const fg_cli *cli, const char *shell);

#endif
