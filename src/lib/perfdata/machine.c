/* The recording's processes and threads as its records describe them:
 * COMM names a thread, FORK makes one (a new process gets a copy of its
 * parent's maps, a new thread shares its process' maps), MMAP/MMAP2 add a
 * map that replaces whatever part of older maps it covers (an exec maps
 * the new program over the old one). Threads and processes are found by
 * their id in hash maps keyed by the id's four bytes. */
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/perfdata/internal.h"
#include "util/banned.h"

void pd_machine_init(pd_machine *m)
{
	fg_strmap empty = FG_STRMAP_INIT;
	fg_arena arena = FG_ARENA_INIT;

	m->threads = empty;
	m->procs = empty;
	m->names = empty;
	m->arena = arena;
	m->epoch = 0;
	m->last_pid = 0;
	m->last_proc = NULL;
	m->last_thread = NULL;
}

void pd_machine_release(pd_machine *m)
{
	size_t i = 0;
	fg_strmap_entry *e;

	while ((e = fg_strmap_next(&m->procs, &i))) {
		pd_proc *p = e->value.p;
		if (!p)
			continue; /* its allocation failed */
		free(p->maps);
		free(p);
	}
	fg_strmap_release(&m->procs);
	fg_strmap_release(&m->threads);
	fg_strmap_release(&m->names);
	fg_arena_release(&m->arena);
}

pd_proc *pd_machine_proc(pd_machine *m, int32_t pid)
{
	fg_strmap_entry *e;

	/* samples come in runs of one process; a process lives as long as
	 * the machine */
	if (m->last_proc && m->last_pid == pid)
		return m->last_proc;
	if (!(e = fg_strmap_put(&m->procs, (const char *)&pid, sizeof(pid))))
		return NULL;
	if (!e->value.p && !(e->value.p = fg_calloc(1, sizeof(pd_proc))))
		return NULL;
	m->last_pid = pid;
	m->last_proc = e->value.p;
	return e->value.p;
}

static pd_thread *find_thread(pd_machine *m, int32_t tid)
{
	fg_strmap_entry *e;

	/* a thread, once made, stays the one of its id */
	if (m->last_thread && m->last_thread->tid == tid)
		return m->last_thread;
	if (!(e = fg_strmap_get(&m->threads, (const char *)&tid, sizeof(tid))) || !e->value.p)
		return NULL;
	return m->last_thread = e->value.p;
}

pd_thread *pd_machine_thread(pd_machine *m, int32_t pid, int32_t tid)
{
	fg_strmap_entry *e;
	pd_thread *t;

	if ((t = find_thread(m, tid))) {
		if (t->pid == -1 && pid != -1)
			t->pid = pid;
		return t;
	}
	if (!(e = fg_strmap_put(&m->threads, (const char *)&tid, sizeof(tid))))
		return NULL;
	if (!(t = fg_arena_alloc(&m->arena, sizeof(*t))))
		return NULL;
	t->pid = pid;
	t->tid = tid;
	t->comm = tid == 0 ? "swapper" : NULL;
	e->value.p = t;
	return t;
}

int pd_machine_comm(pd_machine *m, int32_t pid, int32_t tid, const char *comm, size_t len)
{
	pd_thread *t = pd_machine_thread(m, pid, tid);

	if (!t || !(t->comm = fg_strmap_intern(&m->names, comm, len)))
		return FG_ENOMEM;
	return 0;
}

int pd_machine_fork(pd_machine *m, int32_t pid, int32_t ppid, int32_t tid, int32_t ptid)
{
	pd_thread *parent = pd_machine_thread(m, ppid, ptid), *t;
	const char *comm = parent ? parent->comm : NULL;
	pd_proc *pp, *np;

	if (!parent || !(t = pd_machine_thread(m, pid, tid)))
		return FG_ENOMEM;
	t->pid = pid;
	t->comm = comm;
	if (pid == ppid)
		return 0;
	/* a new process: a copy of the parent's maps */
	if (!(pp = pd_machine_proc(m, ppid)) || !(np = pd_machine_proc(m, pid)))
		return FG_ENOMEM;
	m->epoch++;
	np->n = 0;
	np->execd = pp->execd;
	if (pp->n) {
		if (FG_ALLOC_GROW(np->maps, pp->n, np->alloc, 16))
			return FG_ENOMEM;
		memcpy(np->maps, pp->maps, pp->n * sizeof(*np->maps));
		np->n = pp->n;
		np->gen++;
	}
	return 0;
}

int pd_machine_exec(pd_machine *m, int32_t pid)
{
	pd_proc *p = pd_machine_proc(m, pid);

	if (!p)
		return FG_ENOMEM;
	p->n = 0;
	p->gen++;
	p->execd = true;
	m->epoch++;
	return 0;
}

/* The first map of p that ends after addr. */
static size_t lower_bound(const pd_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int pd_machine_mmap(pd_machine *m, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		    pd_module *mod)
{
	pd_proc *p = pd_machine_proc(m, pid);
	struct pd_map nm = { start, start + len, pgoff, mod }, keep[2];
	size_t i, j, nkeep = 0;

	if (!p)
		return FG_ENOMEM;
	if (!len || nm.end < start)
		return 0;
	m->epoch++;
	/* the overlapped maps [i, j) lose the part the new one covers */
	i = lower_bound(p, start);
	for (j = i; j < p->n && p->maps[j].start < nm.end; j++) {
		struct pd_map *o = &p->maps[j];
		if (o->start < start) {
			keep[nkeep] = *o;
			keep[nkeep++].end = start;
		}
		if (o->end > nm.end) {
			keep[nkeep] = *o;
			keep[nkeep].start = nm.end;
			keep[nkeep++].pgoff = o->pgoff + (nm.end - o->start);
		}
	}
	/* replace [i, j) by the kept pieces around the new map */
	{
		size_t nnew = nkeep + 1, total = p->n - (j - i) + nnew;
		size_t k = 0;
		if (FG_ALLOC_GROW(p->maps, total, p->alloc, 16))
			return FG_ENOMEM;
		memmove(p->maps + i + nnew, p->maps + j, (p->n - j) * sizeof(*p->maps));
		if (nkeep && keep[0].start < start)
			p->maps[i + k++] = keep[0];
		p->maps[i + k++] = nm;
		if (nkeep && keep[nkeep - 1].start >= nm.end)
			p->maps[i + k++] = keep[nkeep - 1];
		p->n = total;
	}
	return 0;
}

const struct pd_map *pd_machine_find_map(pd_machine *m, int32_t pid, uint64_t addr)
{
	fg_strmap_entry *e;
	const pd_proc *p;
	size_t i;

	if (m->last_proc && m->last_pid == pid)
		p = m->last_proc;
	else if (!(e = fg_strmap_get(&m->procs, (const char *)&pid, sizeof(pid))) || !(p = e->value.p))
		return NULL;
	i = lower_bound(p, addr);
	if (i < p->n && p->maps[i].start <= addr)
		return &p->maps[i];
	return NULL;
}
