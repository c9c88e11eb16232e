/* The perf.data reader on recordings perf itself made (tests/data/perfdata,
 * made by its record.sh): perf 6.12 and 5.10, the file form and the pipe
 * form (from a file and as a stream), one event and several (the dummy
 * tracking event perf adds when it records after a delay: of a sample
 * format of its own in 6.12), frame-pointer and dwarf call graphs. Of the
 * samples whose first user frame is the recorded program's, the
 * program's frames up to the first of another file must be those perf
 * script gave (the .stacks file
 * beside each recording), with as many samples each.
 *
 * The program's symbols come from the build-id cache beside the
 * recordings; the pipe form names no build ids, so its frames are named
 * here from the addresses, with the same file's symbol table. Kernel
 * frames and other files' are left out: they depend on the machine. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/perfdata.h"

#define DATA FG_TEST_DATA_DIR "/perfdata"
#define MAX_STACKS 32

struct fixture {
	const char *name;        /* DATA/NAME.data, DATA/NAME.stacks */
	const char *build_id;    /* the program's, for the pipe form */
};

static const struct fixture fixtures[] = {
	{ "6.12-fp", NULL },
	{ "6.12-fp-D", NULL },
	{ "6.12-pipe-fp-D", "4246da9ecd37c8a968675504b2acdda7071f5796" },
	{ "6.12-dwarf-D", NULL },
	{ "5.10-fp", NULL },
	{ "5.10-fp-D", NULL },
	{ "5.10-pipe-fp-D", "92d086b57dd18cbc8a12149d590ef51ad64bb330" },
	{ "5.10-dwarf-D", NULL },
};

/* The program's function symbols, for the pipe form: the function at a
 * file offset. */
struct elfsyms {
	int fd;
	Elf *elf;
	Elf_Scn *symtab;
	GElf_Shdr sh;
	GElf_Phdr text;           /* the executable PT_LOAD */
};

static void elfsyms_open(struct elfsyms *e, const char *build_id)
{
	char path[512];
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t i;

	memset(e, 0, sizeof(*e));
	snprintf(path, sizeof(path), "%s/buildid/.build-id/%.2s/%s/elf", DATA, build_id, build_id + 2);
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	assert_true((e->fd = open(path, O_RDONLY)) >= 0);
	assert_non_null(e->elf = elf_begin(e->fd, ELF_C_READ, NULL));
	while ((scn = elf_nextscn(e->elf, scn)))
		if (gelf_getshdr(scn, &e->sh) && e->sh.sh_type == SHT_SYMTAB) {
			e->symtab = scn;
			break;
		}
	assert_non_null(e->symtab);
	assert_non_null(gelf_getehdr(e->elf, &eh));
	for (i = 0; i < eh.e_phnum; i++)
		if (gelf_getphdr(e->elf, (int)i, &e->text) && e->text.p_type == PT_LOAD &&
		    (e->text.p_flags & PF_X))
			return;
	fail_msg("%s: no executable segment", path);
}

static const char *elfsyms_name(const struct elfsyms *e, uint64_t off)
{
	Elf_Data *d = elf_getdata(e->symtab, NULL);
	uint64_t addr = off - e->text.p_offset + e->text.p_vaddr;
	size_t i, n = e->sh.sh_size / e->sh.sh_entsize;
	GElf_Sym s;

	for (i = 0; d && i < n; i++)
		if (gelf_getsym(d, (int)i, &s) && GELF_ST_TYPE(s.st_info) == STT_FUNC &&
		    addr >= s.st_value && addr < s.st_value + s.st_size)
			return elf_strptr(e->elf, e->sh.sh_link, s.st_name);
	return NULL;
}

static void elfsyms_close(struct elfsyms *e)
{
	if (e->elf)
		elf_end(e->elf);
	if (e->fd > 0)
		close(e->fd);
}

/* Stacks and their sample counts. */
struct stacks {
	char *stack[MAX_STACKS];
	unsigned long count[MAX_STACKS];
	size_t n;
	const struct elfsyms *syms; /* the pipe form: frames named from here */
	unsigned long samples;
};

static void stacks_add(struct stacks *t, const char *stack, unsigned long count)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->stack[i], stack)) {
			t->count[i] += count;
			return;
		}
	assert_true(t->n < MAX_STACKS);
	assert_non_null(t->stack[t->n] = strdup(stack));
	t->count[t->n++] = count;
}

static void stacks_free(struct stacks *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->stack[i]);
}

static bool program_frame(const fg_perfdata_frame *f)
{
	size_t n = f->module ? strlen(f->module) : 0;

	return !f->kernel && n >= 8 && !strcmp(f->module + n - 8, "/fixture");
}

static int on_sample(void *ctx, const fg_perfdata_sample *s)
{
	struct stacks *t = ctx;
	char stack[1024] = "";
	size_t i, first, len = 0;

	t->samples++;
	for (first = 0; first < s->nframes && s->frames[first].kernel; first++)
		;
	/* the program's frames up to the first of another file (how far
	 * unwinding goes past it depends on the machine's libc) */
	for (i = first; i < s->nframes && program_frame(&s->frames[i]); i++)
		;
	if (i == first)
		return 0;
	/* root first, as the .stacks files have them */
	while (i-- > first) {
		const fg_perfdata_frame *f = &s->frames[i];
		const char *name;
		name = f->sym ? f->sym : t->syms ? elfsyms_name(t->syms, f->addr) : NULL;
		len += (size_t)snprintf(stack + len, sizeof(stack) - len, "%s%s", len ? ";" : "",
					name ? name : "[unknown]");
		assert_true(len < sizeof(stack));
	}
	stacks_add(t, stack, 1);
	return 0;
}

/* The .stacks file: "STACK COUNT" lines. */
static void read_expected(struct stacks *t, const char *name)
{
	char path[512], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.stacks", DATA, name);
	assert_non_null(f = fopen(path, "r"));
	while (fgets(line, sizeof(line), f)) {
		char *sp = strrchr(line, ' ');
		assert_non_null(sp);
		*sp = '\0';
		stacks_add(t, line, strtoul(sp + 1, NULL, 10));
	}
	fclose(f);
	assert_true(t->n > 0);
}

static void assert_same_stacks(const struct stacks *want, const struct stacks *got,
			       const char *name)
{
	size_t i, k;

	for (i = 0; i < want->n; i++) {
		for (k = 0; k < got->n && strcmp(got->stack[k], want->stack[i]); k++)
			;
		if (k == got->n || got->count[k] != want->count[i])
			fail_msg("%s: %s: perf script: %lu samples, the reader: %lu", name,
				 want->stack[i], want->count[i], k == got->n ? 0 : got->count[k]);
	}
	for (k = 0; k < got->n; k++) {
		for (i = 0; i < want->n && strcmp(got->stack[k], want->stack[i]); i++)
			;
		if (i == want->n)
			fail_msg("%s: %s: %lu samples, none in perf script", name, got->stack[k],
				 got->count[k]);
	}
}

static fg_perfdata_opts fixture_opts(void)
{
	fg_perfdata_opts o = FG_PERFDATA_OPTS_INIT;

	/* no kernel symbols: kernel frames are left out anyway */
	o.kallsyms = "/dev/null";
	o.buildid_dir = DATA "/buildid";
	return o;
}

/* A file read as a stream, in small pieces. */
struct stream {
	FILE *f;
};

static ssize_t stream_read(void *ctx, void *buf, size_t cap)
{
	struct stream *st = ctx;

	return (ssize_t)fread(buf, 1, cap < 3000 ? cap : 3000, st->f);
}

static void check_fixture(const struct fixture *fx, bool as_stream)
{
	fg_perfdata_opts o = fixture_opts();
	struct stacks want = { .n = 0 }, got = { .n = 0 };
	struct elfsyms syms = { .fd = -1 };
	struct stream st = { NULL };
	fg_perfdata *r = NULL;
	char path[512];

	snprintf(path, sizeof(path), "%s/%s.data", DATA, fx->name);
	read_expected(&want, fx->name);
	if (fx->build_id) {
		elfsyms_open(&syms, fx->build_id);
		got.syms = &syms;
	}
	if (as_stream) {
		assert_non_null(st.f = fopen(path, "rb"));
		assert_int_equal(fg_perfdata_open_stream(&r, fx->name, stream_read, &st, &o), 0);
	} else {
		assert_int_equal(fg_perfdata_open(&r, path, &o), 0);
	}
	if (fg_perfdata_unsupported(r))
		fail_msg("%s: %s", fx->name, fg_perfdata_unsupported(r));
	assert_int_equal(fg_perfdata_foreach(r, on_sample, &got), 0);
	assert_true(got.samples > 0);
	assert_same_stacks(&want, &got, fx->name);
	fg_perfdata_free(r);
	if (st.f)
		fclose(st.f);
	elfsyms_close(&syms);
	stacks_free(&want);
	stacks_free(&got);
}

static void test_fixtures(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(fixtures) / sizeof(*fixtures); i++)
		check_fixture(&fixtures[i], false);
}

/* The pipe form as perf streams it (the default mode reads it so). */
static void test_fixtures_streamed(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(fixtures) / sizeof(*fixtures); i++)
		if (fixtures[i].build_id)
			check_fixture(&fixtures[i], true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_fixtures_streamed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
