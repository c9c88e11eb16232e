/* ELF checks with libelf: segment layout, debug sections, and the
 * compiler's recorded flags (DW_AT_producer strings) for frame pointers,
 * else the unwind tables (unwind_fp.c). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/elfcheck.h"
#include "flamegraph/error.h"
#include "lib/elfcheck/unwind_fp.h"
#include "util/strbuf.h"
#include "util/banned.h"

/* fp_from_unwind sits in padding: the report without it has the same size
 * and every other field at the same offset, so a program compiled without
 * the field reads the report as it expects. */
struct report_without_fp_from_unwind {
	bool is_elf, rosegment;
	char linker[64];
	bool has_debug_info;
	fg_frame_pointers frame_pointers;
	unsigned fp_units, no_fp_units;
	char producer[256];
};
#define SAME_PLACE(f)                                                                   \
	_Static_assert(offsetof(fg_elfcheck_report, f) ==                               \
			       offsetof(struct report_without_fp_from_unwind, f),        \
		       "fg_elfcheck_report." #f " moved")
SAME_PLACE(has_debug_info);
SAME_PLACE(frame_pointers);
SAME_PLACE(fp_units);
SAME_PLACE(no_fp_units);
SAME_PLACE(producer);
_Static_assert(sizeof(fg_elfcheck_report) == sizeof(struct report_without_fp_from_unwind),
	       "fg_elfcheck_report changed size");

/* perf maps code by 4 KB pages; an executable segment starting mid-page in
 * the file is what trips older perf and libunwind. */
#define FG_PAGE 4096u

static void copy_str(char *dst, size_t cap, const char *src, size_t len)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static void check_segments(Elf *e, fg_elfcheck_report *r)
{
	size_t i, n;
	GElf_Phdr ph;
	bool prev_ro = false;

	if (elf_getphdrnum(e, &n) != 0)
		return;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if ((ph.p_flags & PF_X) && prev_ro && ph.p_offset % FG_PAGE != 0)
			r->rosegment = true;
		prev_ro = !(ph.p_flags & (PF_X | PF_W));
	}
}

/* .comment holds NUL-separated strings: "GCC: (Debian ...)", "Linker: LLD
 * 14.0.6", "mold 1.10.1 (compatible with GNU ld)". GNU ld writes none. */
static void read_linker(const char *p, size_t len, fg_elfcheck_report *r)
{
	const char *end = p + len;

	while (p < end) {
		size_t n = strnlen(p, (size_t)(end - p));
		fg_view s = fg_view_of(p, n);
		if (fg_view_starts_with(s, "Linker: "))
			copy_str(r->linker, sizeof(r->linker), p + 8, n - 8);
		else if (fg_view_starts_with(s, "mold "))
			copy_str(r->linker, sizeof(r->linker), p, n);
		p += n + 1;
	}
}

static const char *find_bytes(const char *h, size_t hlen, const char *needle)
{
	return memmem(h, hlen, needle, strlen(needle));
}

/* Judges one producer string such as "GNU C17 12.2.0 -mtune=generic -g
 * -O2 -fno-omit-frame-pointer" (or clang's, ending in its command line).
 * The last explicit -f[no-]omit flag wins; without one, GCC and clang omit
 * frame pointers from -O1 up (x86-64, aarch64). */
static fg_frame_pointers judge_producer(const char *s, size_t len)
{
	const char *p, *last_omit = NULL, *last_keep = NULL;
	bool optimised = false;

	for (p = s; (p = find_bytes(p, len - (size_t)(p - s), "-fomit-frame-pointer")); p++)
		last_omit = p;
	for (p = s; (p = find_bytes(p, len - (size_t)(p - s), "-fno-omit-frame-pointer")); p++)
		last_keep = p;
	if (last_omit || last_keep)
		return last_omit > last_keep ? FG_FP_OMITTED : FG_FP_PRESENT;
	/* the last -O wins; a bare "-O" means -O1 */
	for (p = s; (p = find_bytes(p, len - (size_t)(p - s), " -O")); p++)
		optimised = p + 3 >= s + len || p[3] != '0';
	return optimised ? FG_FP_OMITTED : FG_FP_PRESENT;
}

static bool is_producer(fg_view s)
{
	return fg_view_starts_with(s, "GNU C") || fg_view_starts_with(s, "GNU GIMPLE") ||
	       (s.len > 14 && find_bytes(s.ptr, s.len, "clang version"));
}

/* GCC records its flags in the producer by default; clang only with
 * -grecord-command-line (which flamegraph-build passes to clang), and then
 * the whole command line, that flag included, follows the version. */
static bool has_flags(fg_view s)
{
	return fg_view_starts_with(s, "GNU ") || find_bytes(s.ptr, s.len, " -grecord-command-line");
}

/* Counts the compile units that keep and omit frame pointers. The verdict
 * is the majority's: toolchain pieces linked in statically (the sanitizer
 * runtimes, say) are built without frame pointers even when the program's
 * own code has them, and must not drown it out. */
static void scan_producers(const char *p, size_t len, fg_elfcheck_report *r)
{
	const char *end = p + len;

	while (p < end) {
		size_t n = strnlen(p, (size_t)(end - p));
		fg_view s = fg_view_of(p, n);
		if (is_producer(s) && has_flags(s)) {
			fg_frame_pointers fp = judge_producer(p, n);
			bool was_omitted = r->no_fp_units > r->fp_units;
			if (fp == FG_FP_PRESENT)
				r->fp_units++;
			else
				r->no_fp_units++;
			r->frame_pointers = r->no_fp_units > r->fp_units ? FG_FP_OMITTED : FG_FP_PRESENT;
			if (!r->producer[0] || was_omitted != (r->frame_pointers == FG_FP_OMITTED))
				copy_str(r->producer, sizeof(r->producer), p, n);
		} else if (is_producer(s) && !r->producer[0]) {
			copy_str(r->producer, sizeof(r->producer), p, n);
		}
		p += n + 1;
	}
}

static void check_sections(Elf *e, fg_elfcheck_report *r)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(e, scn))) {
		const char *name;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".debug_info") || !strcmp(name, ".debug_line") ||
		    !strcmp(name, ".zdebug_info")) {
			r->has_debug_info = true;
			continue;
		}
		if (strcmp(name, ".comment") && strcmp(name, ".debug_str") &&
		    strcmp(name, ".debug_line_str"))
			continue;
		if (sh.sh_type == SHT_NOBITS)
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			continue;
		if (!(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		if (!strcmp(name, ".comment"))
			read_linker(d->d_buf, d->d_size, r);
		else
			scan_producers(d->d_buf, d->d_size, r);
	}
}

static int check_elf(Elf *e, fg_elfcheck_report *r)
{
	if (!e || elf_kind(e) != ELF_K_ELF)
		return 0;
	r->is_elf = true;
	check_segments(e, r);
	check_sections(e, r);
	if (!r->linker[0] && !r->rosegment)
		copy_str(r->linker, sizeof(r->linker), "GNU ld", 6);
	if (!r->has_debug_info)
		r->frame_pointers = FG_FP_UNKNOWN;
	if (r->frame_pointers == FG_FP_UNKNOWN) {
		/* no producer string said: the unwind tables may */
		fg_unwind_fp c;
		fg_frame_pointers fp = fg_unwind_frame_pointers(e, &c);
		if (fp != FG_FP_UNKNOWN) {
			r->frame_pointers = fp;
			r->fp_from_unwind = true;
			r->fp_units = c.rbp_cfa;
			r->no_fp_units = c.functions - c.rbp_cfa;
		}
	}
	return 0;
}

static void report_init(fg_elfcheck_report *r)
{
	memset(r, 0, sizeof(*r));
}

int fg_elfcheck_memory(const void *data, size_t len, fg_elfcheck_report *report)
{
	Elf *e;
	int err;

	report_init(report);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return fg_error_set(FG_EIO, "libelf is too old: %s", elf_errmsg(-1));
	/* libelf wants a writable pointer but only reads with ELF_C_READ_MMAP
	 * semantics for memory images */
	e = elf_memory((char *)data, len);
	err = check_elf(e, report);
	elf_end(e);
	return err;
}

int fg_elfcheck_file(const char *path, fg_elfcheck_report *report)
{
	Elf *e;
	int fd, err;

	report_init(report);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return fg_error_set(FG_EIO, "libelf is too old: %s", elf_errmsg(-1));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fg_error_set(errno == ENOENT ? FG_ENOTFOUND : FG_EIO,
				    "cannot read %s: %s", path, strerror(errno));
	e = elf_begin(fd, ELF_C_READ, NULL);
	err = check_elf(e, report);
	elf_end(e);
	close(fd);
	return err;
}

static const char *fix_link(fg_fix_style style)
{
	switch (style) {
	case FG_FIX_CMAKE:
		return "reconfigure with -DCMAKE_EXE_LINKER_FLAGS=-Wl,--no-rosegment";
	case FG_FIX_TOML:
		return "add ldflags = [\"-Wl,--no-rosegment\"] to [build] in flamegraph.toml";
	default:
		return "relink with -Wl,--no-rosegment";
	}
}

static const char *fix_debug(fg_fix_style style)
{
	switch (style) {
	case FG_FIX_CMAKE:
		return "reconfigure with -DCMAKE_BUILD_TYPE=RelWithDebInfo (or add -g to CMAKE_C_FLAGS)";
	case FG_FIX_TOML:
		return "add \"-g\" to cflags in [build] of flamegraph.toml";
	default:
		return "rebuild it with -g (e.g. cc -O2 -g)";
	}
}

static const char *fix_fp(fg_fix_style style)
{
	switch (style) {
	case FG_FIX_CMAKE:
		return "reconfigure with -DCMAKE_C_FLAGS=-fno-omit-frame-pointer, or profile with `opts.call_graph=dwarf`";
	case FG_FIX_TOML:
		return "add \"-fno-omit-frame-pointer\" to cflags in [build] of flamegraph.toml, or profile with `opts.call_graph=dwarf`";
	default:
		return "rebuild it with -fno-omit-frame-pointer, or profile with `opts.call_graph=dwarf`";
	}
}

unsigned fg_elfcheck_warnings(const fg_elfcheck_report *r, const char *path,
			      bool fp_mode, fg_fix_style style,
			      fg_elfcheck_warn_cb cb, void *ctx)
{
	fg_strbuf msg = FG_STRBUF_INIT;
	unsigned n = 0;

	if (!r->is_elf)
		return 0;
	if (r->rosegment) {
		fg_strbuf_addf(&msg, "%s was linked%s%s with a read-only segment followed by code at a "
			       "file offset that is not page-aligned (--rosegment); perf may "
			       "mis-map its code and show flat stacks — %s",
			       path, r->linker[0] ? " by " : "", r->linker, fix_link(style));
		cb(ctx, msg.buf);
		fg_strbuf_reset(&msg);
		n++;
	}
	if (!r->has_debug_info) {
		fg_strbuf_addf(&msg, "%s has no debug info (.debug_info/.debug_line): inlined "
			       "functions and source lines are lost — %s", path, fix_debug(style));
		cb(ctx, msg.buf);
		fg_strbuf_reset(&msg);
		n++;
	}
	if (fp_mode && r->frame_pointers == FG_FP_OMITTED) {
		fg_strbuf_addf(&msg, "%s was built without frame pointers%s, so `opts.call_graph=fp` "
			       "will lose callers — %s", path,
			       r->fp_from_unwind ? " (as its unwind tables show)" : "", fix_fp(style));
		cb(ctx, msg.buf);
		n++;
	}
	fg_strbuf_release(&msg);
	return n;
}
