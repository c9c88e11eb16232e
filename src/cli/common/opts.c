#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common/diag.h"
#include "cli/common/opts.h"
#include "util/suggest.h"
#include "util/strbuf.h"
#include "util/banned.h"

int fg_strlist_push(fg_strlist *l, const char *s)
{
	if (l->count == l->alloc) {
		size_t n = l->alloc ? l->alloc * 2 : 8;
		const char **p = fg_realloc_array(l->items, n, sizeof(*p));
		if (!p)
			return -1;
		l->items = p;
		l->alloc = n;
	}
	l->items[l->count++] = s;
	return 0;
}

int fg_strlist_split_commas(fg_strlist *out, const fg_strlist *in)
{
	for (size_t i = 0; i < in->count; i++) {
		/* the argv string is ours to cut at the commas */
		char *p = (char *)in->items[i];
		while (p) {
			char *comma = strchr(p, ',');
			if (comma)
				*comma = '\0';
			if (*p && fg_strlist_push(out, p))
				return -1;
			p = comma ? comma + 1 : NULL;
		}
	}
	return 0;
}

int fg_opt_to_unsigned(unsigned *out, long long v, const char *flag)
{
	if (v < 0 || (unsigned long long)v > UINT_MAX) {
		fg_errorf("%s %lld is not a number of pixels", flag, v);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

void fg_strlist_release(fg_strlist *l)
{
	free(l->items);
	l->items = NULL;
	l->count = l->alloc = 0;
}

static int usage_error(const fg_cli *cli, const char *fmt, const char *what)
{
	fputs(cli->prog, stderr);
	fputs(": error: ", stderr);
	fprintf(stderr, fmt, what);
	fprintf(stderr, " (see '%s --help')\n", cli->prog);
	return FG_OPTS_USAGE;
}

static bool choice_ok(const char *choices, const char *arg)
{
	size_t n = strlen(arg);
	const char *p = choices;

	while (p && *p) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && memcmp(p, arg, n) == 0)
			return true;
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

static int apply(const fg_cli *cli, const fg_option *o, const char *arg, const char *shown)
{
	char *end;

	if (o->choices && arg && !choice_ok(o->choices, arg)) {
		fprintf(stderr, "%s: error: %s: '%s' is not one of %s\n", cli->prog,
			shown, arg, o->choices);
		return FG_OPTS_USAGE;
	}
	switch (o->type) {
	case FG_OPT_BOOL_:
		*(bool *)o->target = true;
		return 0;
	case FG_OPT_STRING_:
		*(const char **)o->target = arg;
		return 0;
	case FG_OPT_LIST_:
		return fg_strlist_push(o->target, arg) ? FG_OPTS_USAGE : 0;
	case FG_OPT_INT_:
		errno = 0;
		*(long long *)o->target = strtoll(arg, &end, 10);
		if (errno || end == arg || *end) {
			fprintf(stderr, "%s: error: %s wants a whole number, not '%s'\n",
				cli->prog, shown, arg);
			return FG_OPTS_USAGE;
		}
		return 0;
	case FG_OPT_DOUBLE_:
		errno = 0;
		*(double *)o->target = strtod(arg, &end);
		if (errno || end == arg || *end) {
			fprintf(stderr, "%s: error: %s wants a number, not '%s'\n",
				cli->prog, shown, arg);
			return FG_OPTS_USAGE;
		}
		return 0;
	case FG_OPT_CALLBACK_:
		if (o->callback(o, arg, o->target)) {
			/* the callback explains itself via fg_errorf */
			return FG_OPTS_USAGE;
		}
		return 0;
	default:
		return FG_OPTS_USAGE;
	}
}

static const fg_option *find_long(const fg_option *o, const char *name, size_t len)
{
	for (; o->type != FG_OPT_END_; o++)
		if (o->long_name && strlen(o->long_name) == len &&
		    memcmp(o->long_name, name, len) == 0)
			return o;
	return NULL;
}

static const fg_option *find_short(const fg_option *o, char c)
{
	for (; o->type != FG_OPT_END_; o++)
		if (o->type != FG_OPT_GROUP_ && o->short_name == c)
			return o;
	return NULL;
}

/* The next argument, when o takes an optional number there (-z 3). */
static const char *optional_number(const fg_option *o, int argc, char **argv, int *i)
{
	const char *a;

	if (!(o->flags & FG_OPTF_OPTNUM) || *i + 1 >= argc)
		return NULL;
	a = argv[*i + 1];
	if (!*a || strspn(a, "0123456789") != strlen(a))
		return NULL;
	++*i;
	return a;
}

static bool takes_arg(const fg_option *o)
{
	return o->type != FG_OPT_BOOL_ && !(o->flags & FG_OPTF_OPTARG) &&
	       !(o->type == FG_OPT_CALLBACK_ && !o->argname);
}

/* Handles the built-in --help, --version and --completions. Returns -1 when
 * `name` is not one of them. */
static int builtin(const fg_cli *cli, const char *name, size_t len, const char *value,
		   int argc, char **argv, int *i)
{
	if ((len == 4 && !memcmp(name, "help", 4))) {
		fg_opts_help(cli);
		return FG_OPTS_EXIT;
	}
	if (len == 7 && !memcmp(name, "version", 7)) {
		printf("%s %s\n", cli->prog, FG_VERSION);
		return FG_OPTS_EXIT;
	}
	if (cli->completions && len == 11 && !memcmp(name, "completions", 11)) {
		if (!value && *i + 1 < argc)
			value = argv[++*i];
		if (!value)
			return usage_error(cli, "%s needs a shell: bash, zsh or fish", "--completions");
		if (fg_opts_completions(cli, value))
			return usage_error(cli, "unknown shell '%s' for --completions (bash, zsh or fish)", value);
		return FG_OPTS_EXIT;
	}
	return -1;
}

/* An unknown --option: the nearest known one, or, for a program that
 * passes arguments on to another ([-- ARGS...]), where those go. */
static int unknown_long(const fg_cli *cli, const char *arg, const char *name, size_t len)
{
	const char *longs[256], *near;
	char word[64];
	size_t n = 0;

	snprintf(word, sizeof(word), "%.*s", (int)(len < 63 ? len : 63), name);
	for (const fg_option *o = cli->options; o->type != FG_OPT_END_ && n < 256; o++)
		if (o->type != FG_OPT_GROUP_ && !(o->flags & FG_OPTF_HIDDEN))
			longs[n++] = o->long_name;
	fg_strbuf msg = FG_STRBUF_INIT;
	int r;

	fg_strbuf_addf(&msg, "unknown option '%s'", arg);
	if ((near = fg_suggest(word, longs, n)))
		fg_strbuf_addf(&msg, " — did you mean --%s?", near);
	else if (cli->usage && strstr(cli->usage, "[-- ARGS"))
		fg_strbuf_addf(&msg, " — if it is the program's, put it after --: %s [OPTIONS] -- %s",
			       cli->prog, arg);
	r = usage_error(cli, "%s", msg.buf);
	fg_strbuf_release(&msg);
	return r;
}

static int parse_long(const fg_cli *cli, int argc, char **argv, int *i)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const char *value = eq ? eq + 1 : NULL;
	const fg_option *o = find_long(cli->options, name, len);
	char shown[64];
	int r;

	/* "--palette", for messages about its value (not "--palette=x") */
	snprintf(shown, sizeof(shown), "--%.*s", (int)(len < 60 ? len : 60), name);
	if (!o) {
		if ((r = builtin(cli, name, len, value, argc, argv, i)) >= 0)
			return r;
		return unknown_long(cli, argv[*i], name, len);
	}
	if (!takes_arg(o)) {
		if (value && o->type == FG_OPT_BOOL_)
			return usage_error(cli, "option '%s' takes no value", shown);
		if (!value)
			value = optional_number(o, argc, argv, i);
		return apply(cli, o, value, shown);
	}
	if (!value) {
		if (*i + 1 >= argc)
			return usage_error(cli, "option '%s' needs a value", shown);
		value = argv[++*i];
	}
	return apply(cli, o, value, shown);
}

static int parse_short(const fg_cli *cli, int argc, char **argv, int *i)
{
	const char *p = argv[*i] + 1;
	char shown[3] = { '-', 0, 0 };

	for (; *p; p++) {
		const fg_option *o = find_short(cli->options, *p);
		shown[1] = *p;
		if (!o) {
			if (*p == 'h') {
				fg_opts_help(cli);
				return FG_OPTS_EXIT;
			}
			if (*p == 'V') {
				printf("%s %s\n", cli->prog, FG_VERSION);
				return FG_OPTS_EXIT;
			}
			return usage_error(cli, "unknown option '%s'", shown);
		}
		if (!takes_arg(o) && (o->flags & FG_OPTF_OPTNUM))
			return apply(cli, o, p[1] ? p + 1 : optional_number(o, argc, argv, i), shown);
		if (!takes_arg(o)) {
			int r = apply(cli, o, NULL, shown);
			if (r)
				return r;
			continue;
		}
		if (p[1])
			return apply(cli, o, p + 1, shown);
		if (*i + 1 >= argc)
			return usage_error(cli, "option '%s' needs a value", shown);
		return apply(cli, o, argv[++*i], shown);
	}
	return 0;
}

int fg_opts_parse(const fg_cli *cli, int argc, char **argv, int *npos, int *dashdash)
{
	int i, n = 0, r;

	*dashdash = -1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			*dashdash = n;
			for (i++; i < argc; i++)
				argv[n++] = argv[i];
			break;
		}
		if (a[0] != '-' || !a[1]) {
			argv[n++] = argv[i];
			if (cli->stop_at_positional) {
				*dashdash = n;
				for (i++; i < argc; i++)
					argv[n++] = argv[i];
				break;
			}
			continue;
		}
		r = a[1] == '-' ? parse_long(cli, argc, argv, &i) : parse_short(cli, argc, argv, &i);
		if (r)
			return r;
	}
	*npos = n;
	if (*dashdash < 0)
		*dashdash = n;
	return FG_OPTS_OK;
}

static void help_row(const fg_option *o)
{
	fg_strbuf left = FG_STRBUF_INIT;

	if (o->short_name)
		fg_strbuf_addf(&left, "  -%c, ", o->short_name);
	else
		fg_strbuf_addstr(&left, "      ");
	fg_strbuf_addf(&left, "--%s", o->long_name);
	if (o->argname)
		fg_strbuf_addf(&left, (o->flags & FG_OPTF_OPTARG) ? "[=%s]" : " %s", o->argname);
	if (left.len < 30)
		printf("%-30s%s\n", left.buf, o->help);
	else
		printf("%s\n%30s%s\n", left.buf, "", o->help);
	fg_strbuf_release(&left);
}

void fg_opts_help(const fg_cli *cli)
{
	const fg_option *o;

	printf("Usage: %s %s\n", cli->prog, cli->usage);
	if (cli->summary)
		printf("\n%s\n", cli->summary);
	printf("\nOptions:\n");
	bool aliases = false;

	for (o = cli->options; o->type != FG_OPT_END_; o++) {
		if (o->type == FG_OPT_GROUP_)
			printf("\n%s:\n", o->help);
		else if (!(o->flags & (FG_OPTF_HIDDEN | FG_OPTF_ALIAS)))
			help_row(o);
		aliases |= (o->flags & FG_OPTF_ALIAS) != 0;
	}
	if (aliases) {
		printf("\nAliases (the spellings of inferno-flamegraph and flamegraph.pl):\n");
		for (o = cli->options; o->type != FG_OPT_END_; o++)
			if (o->type != FG_OPT_GROUP_ && (o->flags & FG_OPTF_ALIAS))
				help_row(o);
	}
	printf("\n");
	if (cli->completions)
		printf("      --completions SHELL     print a completion script for bash, zsh or fish\n");
	printf("  -h, --help                  print this help and exit\n");
	printf("  -V, --version               print the version and exit\n");
	if (cli->footer)
		printf("\n%s\n", cli->footer);
}

/* Shell-safe identifier for function names: flamegraph-build -> flamegraph_build. */
static void ident(fg_strbuf *out, const char *prog)
{
	for (; *prog; prog++)
		fg_strbuf_addch(out, (*prog == '-' || *prog == '.') ? '_' : *prog);
}

static void quote_single(const char *s)
{
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*s);
	}
}

static bool has_names(const fg_cli *cli)
{
	for (const fg_option *o = cli->options; o->type != FG_OPT_END_; o++)
		if (o->names)
			return true;
	return false;
}

static void complete_bash(const fg_cli *cli)
{
	fg_strbuf fn = FG_STRBUF_INIT;
	const fg_option *o;

	ident(&fn, cli->prog);
	printf("# bash completion for %s\n", cli->prog);
	if (has_names(cli))
		/* the project's own names, for the project the line names */
		printf("_%s_names() {\n    local i args=()\n"
		       "    for ((i = 1; i < COMP_CWORD - 1; i++)); do\n"
		       "        case \"${COMP_WORDS[i]}\" in\n"
		       "        --manifest-path|--package|-p) args+=(\"${COMP_WORDS[i]}\" \"${COMP_WORDS[i+1]}\");;\n"
		       "        esac\n    done\n"
		       "    %s \"${args[@]}\" --list-names \"$1\" 2>/dev/null\n}\n", fn.buf, cli->prog);
	printf("_%s() {\n", fn.buf);
	printf("    local cur prev\n    cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
	       "    prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n    case \"$prev\" in\n");
	for (o = cli->options; o->type != FG_OPT_END_; o++) {
		if (o->type == FG_OPT_GROUP_ || !takes_arg(o))
			continue;
		printf("        --%s", o->long_name);
		if (o->short_name)
			printf("|-%c", o->short_name);
		if (o->choices) {
			printf(") COMPREPLY=($(compgen -W '");
			for (const char *c = o->choices; *c; c++)
				putchar(*c == '|' ? ' ' : *c);
			printf("' -- \"$cur\")); return;;\n");
		} else if (o->names) {
			printf(") COMPREPLY=($(compgen -W \"$(_%s_names %s)\" -- \"$cur\")); return;;\n",
			       fn.buf, o->names);
		} else {
			printf(") COMPREPLY=($(compgen -f -- \"$cur\")); return;;\n");
		}
	}
	printf("    esac\n    if [[ \"$cur\" == -* ]]; then\n        COMPREPLY=($(compgen -W '");
	for (o = cli->options; o->type != FG_OPT_END_; o++) {
		if (o->type == FG_OPT_GROUP_ || (o->flags & FG_OPTF_HIDDEN))
			continue;
		printf("--%s ", o->long_name);
		if (o->short_name)
			printf("-%c ", o->short_name);
	}
	printf("--help --version' -- \"$cur\"))\n    else\n"
	       "        COMPREPLY=($(compgen -f -- \"$cur\"))\n    fi\n}\n");
	printf("complete -F _%s %s\n", fn.buf, cli->prog);
	fg_strbuf_release(&fn);
}

static void complete_zsh(const fg_cli *cli)
{
	const fg_option *o;

	printf("#compdef %s\n_arguments -s \\\n", cli->prog);
	for (o = cli->options; o->type != FG_OPT_END_; o++) {
		if (o->type == FG_OPT_GROUP_ || (o->flags & FG_OPTF_HIDDEN))
			continue;
		printf("  '");
		if (o->short_name)
			printf("(-%c --%s)'{-%c,--%s}'", o->short_name, o->long_name,
			       o->short_name, o->long_name);
		else
			/* an optional value is given after '=' */
			printf("--%s%s", o->long_name, (o->flags & FG_OPTF_OPTARG) && o->choices ? "=-" : "");
		printf("[");
		for (const char *h = o->help; *h; h++) {
			if (*h == '\'')
				fputs("'\\''", stdout);
			else if (*h == '[' || *h == ']')
				printf("\\%c", *h);
			else
				putchar(*h);
		}
		printf("]");
		if ((o->flags & FG_OPTF_OPTARG) && o->choices) {
			printf("::%s:(", o->argname ? o->argname : "value");
			for (const char *c = o->choices; *c; c++)
				putchar(*c == '|' ? ' ' : *c);
			printf(")");
		} else if (takes_arg(o)) {
			printf(":%s:", o->argname ? o->argname : "value");
			if (o->choices) {
				printf("(");
				for (const char *c = o->choices; *c; c++)
					putchar(*c == '|' ? ' ' : *c);
				printf(")");
			} else if (o->names) {
				printf("{local -a mp; [[ -n ${opt_args[--manifest-path]} ]] && "
				       "mp=(--manifest-path ${opt_args[--manifest-path]}); "
				       "compadd -- ${(f)\"$(%s $mp --list-names %s 2>/dev/null)\"}}",
				       cli->prog, o->names);
			} else {
				printf("_files");
			}
		}
		printf("' \\\n");
	}
	printf("  '(- *)--help[print help]' \\\n  '(- *)--version[print version]' \\\n"
	       "  '*:file:_files'\n");
}

static void complete_fish(const fg_cli *cli)
{
	const fg_option *o;

	for (o = cli->options; o->type != FG_OPT_END_; o++) {
		if (o->type == FG_OPT_GROUP_ || (o->flags & FG_OPTF_HIDDEN))
			continue;
		printf("complete -c %s -l %s", cli->prog, o->long_name);
		if (o->short_name)
			printf(" -s %c", o->short_name);
		if (takes_arg(o))
			printf(" -r");
		/* fish has no optional values: --alloc=VIEW is typed out */
		if (o->choices && !(o->flags & FG_OPTF_OPTARG)) {
			printf(" -x -a '");
			for (const char *c = o->choices; *c; c++)
				putchar(*c == '|' ? ' ' : *c);
			printf("'");
		} else if (o->names) {
			printf(" -x -a '(%s --list-names %s 2>/dev/null)'", cli->prog, o->names);
		}
		printf(" -d '");
		quote_single(o->help);
		printf("'\n");
	}
	printf("complete -c %s -l help -d 'print help'\n", cli->prog);
	printf("complete -c %s -l version -d 'print version'\n", cli->prog);
}

int fg_opts_completions(const fg_cli *cli, const char *shell)
{
	if (!strcmp(shell, "bash"))
		complete_bash(cli);
	else if (!strcmp(shell, "zsh"))
		complete_zsh(cli);
	else if (!strcmp(shell, "fish"))
		complete_fish(cli);
	else
		return -1;
	return 0;
}
