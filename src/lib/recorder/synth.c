/* What existed before the events did, described from /proc as the
 * kernel would have recorded it: each thread's name (COMM), each map of
 * code of a process (MMAP2), and the kernel's own map at _text, so that
 * samples in code loaded earlier are named. */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "flamegraph/error.h"
#include "lib/recorder/internal.h"
#include "util/path.h"
#include "util/banned.h"

int rn_synth_trailer(rn_state *st, fg_strbuf *rec, pid_t pid, pid_t tid)
{
	uint32_t ptid[2] = { (uint32_t)pid, (uint32_t)tid }, cpu[2] = { 0, 0 };
	uint64_t time = 0, id = st->nfds ? st->ids[0] : 0;

	fg_strbuf_add(rec, ptid, sizeof(ptid));
	fg_strbuf_add(rec, &time, sizeof(time));
	fg_strbuf_add(rec, &id, sizeof(id));
	fg_strbuf_add(rec, cpu, sizeof(cpu));
	return fg_strbuf_check(rec);
}

/* A name padded with NULs to 8 bytes, as the kernel pads it. */
static void add_padded(fg_strbuf *rec, const char *s)
{
	size_t n = strlen(s) + 1;
	static const char zeros[8];

	fg_strbuf_add(rec, s, n);
	if (n % 8)
		fg_strbuf_add(rec, zeros, 8 - n % 8);
}

/* Sets the size in the header that starts rec, and writes it. */
static int emit_record(rn_state *st, fg_strbuf *rec, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };
	int err;

	if ((err = fg_strbuf_check(rec)))
		return err;
	if (rec->len > 65535)
		return 0;
	h.size = (uint16_t)rec->len;
	memcpy(rec->buf, &h, sizeof(h));
	return rn_stream_write(st, rec->buf, rec->len);
}

static int read_line_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int synth_comm(rn_state *st, pid_t pid, pid_t tid)
{
	fg_strbuf rec = FG_STRBUF_INIT;
	char path[64], comm[64];
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)tid };
	struct perf_event_header h = { 0 };
	int err;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	if (read_line_file(path, comm, sizeof(comm)))
		return 0; /* gone meanwhile */
	fg_strbuf_add(&rec, &h, sizeof(h));
	fg_strbuf_add(&rec, ids, sizeof(ids));
	add_padded(&rec, comm);
	if (!(err = rn_synth_trailer(st, &rec, pid, tid)))
		err = emit_record(st, &rec, PERF_RECORD_COMM, 0);
	fg_strbuf_release(&rec);
	return err;
}

bool rn_take_num(const char **p, unsigned base, unsigned long long *out)
{
	const char *s = *p;
	unsigned long long v = 0;

	for (;; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else
			break;
		if (v > (~0ULL - d) / base)
			return false;
		v = v * base + d;
	}
	if (s == *p)
		return false;
	*out = v;
	*p = s;
	return true;
}

static bool take_char(const char **p, char c)
{
	if (**p != c)
		return false;
	++*p;
	return true;
}

static void skip_blanks(const char **p)
{
	while (**p == ' ' || **p == '\t')
		++*p;
}

/* /proc/PID/maps' fields, of the kernel's fixed shape. */
typedef struct map_line {
	unsigned long long start, end, pgoff, maj, min, ino;
	char perms[4];
	const char *name;
} map_line;

static bool parse_map_line(const char *p, map_line *m)
{
	if (!rn_take_num(&p, 16, &m->start) || !take_char(&p, '-') || !rn_take_num(&p, 16, &m->end) ||
	    !take_char(&p, ' ') || strlen(p) < 5 || p[4] != ' ')
		return false;
	memcpy(m->perms, p, 4);
	p += 5;
	if (!rn_take_num(&p, 16, &m->pgoff) || !take_char(&p, ' ') || !rn_take_num(&p, 16, &m->maj) ||
	    !take_char(&p, ':') || !rn_take_num(&p, 16, &m->min) || !take_char(&p, ' ') ||
	    !rn_take_num(&p, 10, &m->ino))
		return false;
	skip_blanks(&p);
	m->name = p;
	return true;
}

/* One line of /proc/PID/maps: "start-end perms offset maj:min inode
 * path". The maps of files (code and data: unwind tables may lie in a
 * read-only map beside the code) and the vdso are described. */
static int synth_map(rn_state *st, pid_t pid, char *line)
{
	map_line m;
	char *name;
	fg_strbuf rec = FG_STRBUF_INIT;
	struct perf_event_header h = { 0 };
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)pid }, prot, flags;
	uint64_t v[3];
	int err;

	line[strcspn(line, "\n")] = '\0';
	if (!parse_map_line(line, &m))
		return 0;
	name = line + (m.name - line);
	if (!*name || (name[0] == '[' && strcmp(name, "[vdso]")))
		return 0;
	prot = (m.perms[2] == 'x' ? PROT_EXEC : 0) | (m.perms[0] == 'r' ? PROT_READ : 0) | (m.perms[1] == 'w' ? PROT_WRITE : 0);
	flags = m.perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	v[0] = m.start;
	v[1] = m.end - m.start;
	v[2] = m.pgoff;
	fg_strbuf_add(&rec, &h, sizeof(h));
	fg_strbuf_add(&rec, ids, sizeof(ids));
	fg_strbuf_add(&rec, v, sizeof(v));
	{
		uint32_t mm[2] = { (uint32_t)m.maj, (uint32_t)m.min };
		uint64_t in[2] = { m.ino, 0 };
		uint32_t pf[2] = { prot, flags };
		fg_strbuf_add(&rec, mm, sizeof(mm));
		fg_strbuf_add(&rec, in, sizeof(in));
		fg_strbuf_add(&rec, pf, sizeof(pf));
	}
	add_padded(&rec, name);
	if (!(err = rn_synth_trailer(st, &rec, pid, pid)))
		err = emit_record(st, &rec, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER |
				  (prot & PROT_EXEC ? 0 : PERF_RECORD_MISC_MMAP_DATA));
	fg_strbuf_release(&rec);
	return err;
}

static int synth_maps(rn_state *st, pid_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	while (!err && getline(&line, &cap, f) > 0)
		err = synth_map(st, pid, line);
	free(line);
	fclose(f);
	return err;
}

pid_t rn_task_id(const char *name)
{
	unsigned long long v;

	return fg_parse_u64(fg_view_cstr(name), &v) || v > 0x3fffffff ? 0 : (pid_t)v;
}

int rn_synth_process(rn_state *st, pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((dir = opendir(path))) {
		while (!err && (d = readdir(dir)))
			if (rn_task_id(d->d_name))
				err = synth_comm(st, pid, rn_task_id(d->d_name));
		closedir(dir);
	}
	return err ? err : synth_maps(st, pid);
}

int rn_synth_kernel(rn_state *st)
{
	unsigned long long addr = 0;
	char line[512];
	fg_strbuf rec = FG_STRBUF_INIT, note = FG_STRBUF_INIT;
	struct perf_event_header h = { 0 };
	FILE *f;
	int err;

	if (st->attr.exclude_kernel)
		return 0;
	if ((f = fopen("/proc/kallsyms", "r"))) {
		while (fgets(line, sizeof(line), f)) {
			const char *p = line;
			/* "ADDR T _text" */
			if (rn_take_num(&p, 16, &addr) && strlen(p) >= 8 && !strncmp(p + 2, " _text", 6) &&
			    (p[8] == '\n' || p[8] == '\0'))
				break;
			addr = 0;
		}
		fclose(f);
	}
	if (!addr) {
		rn_msg_kptr_hidden((int)fg_read_number_file("/proc/sys/kernel/kptr_restrict", -1), &note);
		if (!fg_strbuf_failed(&note))
			rn_emit(st, FG_RECORDER_NOTE, note.buf);
		fg_strbuf_release(&note);
		return 0;
	}
	{
		uint32_t ids[2] = { (uint32_t)-1, 0 };
		uint64_t v[3] = { addr, ~0ULL - addr, addr };
		fg_strbuf_add(&rec, &h, sizeof(h));
		fg_strbuf_add(&rec, ids, sizeof(ids));
		fg_strbuf_add(&rec, v, sizeof(v));
	}
	add_padded(&rec, "[kernel.kallsyms]_text");
	if (!(err = rn_synth_trailer(st, &rec, -1, 0)))
		err = emit_record(st, &rec, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	fg_strbuf_release(&rec);
	return err;
}
