/* The outermost frames of a program's stacks, shared by its processes.
 *
 * What a whole stack teaches (hybrid.c) is kept per process, at that
 * process' addresses. Every process that runs the same program with the
 * same C library has the same frames after the same return address,
 * only at other addresses (each maps its modules where it likes): kept
 * as places (a module and its file offset), they serve a process before
 * any whole stack of its own came, as a child started by a shell, or
 * each of a test suite's programs, whose first whole sample may come
 * late or never. A place after which two stacks, of any processes,
 * showed different frames teaches nothing, as within one process. */
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/perfdata/hybrid.h"
#include "util/banned.h"

static uint64_t place_key(struct pd_place p)
{
	return ((uint64_t)(uintptr_t)p.mod * 0x9e3779b97f4a7c15u) ^ (p.off * 0xc2b2ae3d27d4eb4fu);
}

/* The place of pid's address pc: false outside every module's file. */
static bool place_of(pd_machine *m, int32_t pid, uint64_t pc, struct pd_place *out)
{
	const struct pd_map *map = pd_machine_find_map(m, pid, pc);

	if (!map || !map->mod || map->mod->anon || map->mod->kernel)
		return false;
	out->mod = map->mod;
	out->off = pc - map->start + map->pgoff;
	return true;
}

/* pid's address of place p: false when no map of pid holds it. */
static bool address_of(pd_machine *m, int32_t pid, struct pd_place p, uint64_t *out)
{
	pd_proc *proc = pd_machine_proc(m, pid);

	for (size_t i = 0; proc && i < proc->n; i++) {
		const struct pd_map *map = &proc->maps[i];
		if (map->mod == p.mod && p.off >= map->pgoff &&
		    p.off - map->pgoff < map->end - map->start) {
			*out = map->start + (p.off - map->pgoff);
			return true;
		}
	}
	return false;
}

static struct pd_shared_entry *entry_get(const pd_outer_shared *sh, struct pd_place p)
{
	const uint64_t *i = pd_u64map_get(&sh->index, place_key(p));
	struct pd_shared_entry *e = i ? &sh->v[*i - 1] : NULL;

	return e && e->anchor.mod == p.mod && e->anchor.off == p.off ? e : NULL;
}

static bool same_places(const pd_outer_shared *sh, const struct pd_shared_entry *e,
			const struct pd_place *p, size_t n)
{
	if (e->n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (sh->pool[e->first + i].mod != p[i].mod || sh->pool[e->first + i].off != p[i].off)
			return false;
	return true;
}

int pd_outer_shared_learn(pd_outer_shared *sh, pd_machine *m, int32_t pid, const uint64_t *s,
			  size_t n)
{
	struct pd_place *p;
	size_t k, from = 1, base = SIZE_MAX;
	int err = 0;

	if (n < 2 || n > UINT32_MAX || sh->npool > UINT32_MAX - n)
		return 0;
	if (!(p = fg_calloc(n, sizeof(*p))))
		return FG_ENOMEM;
	/* only the anchors whose frames after them all have places */
	for (k = 1; k < n; k++)
		if (!place_of(m, pid, s[k], &p[k]))
			from = k + 1;
	for (k = n; k-- > from;) {
		struct pd_shared_entry *e = entry_get(sh, p[k]);
		uint64_t *slot;
		if (e) {
			if (!same_places(sh, e, p + k + 1, n - k - 1))
				e->ambiguous = true;
			continue;
		}
		if (base == SIZE_MAX) {
			if (FG_ALLOC_GROW(sh->pool, sh->npool + n, sh->apool, 256)) {
				err = FG_ENOMEM;
				break;
			}
			memcpy(sh->pool + sh->npool, p, n * sizeof(*p));
			base = sh->npool;
			sh->npool += n;
		}
		if (FG_ALLOC_GROW(sh->v, sh->nv + 1, sh->av, 16) ||
		    pd_u64map_put(&sh->index, place_key(p[k]), &slot)) {
			err = FG_ENOMEM;
			break;
		}
		/* a slot taken by another place (their keys met): it keeps it */
		if (*slot)
			continue;
		e = &sh->v[sh->nv++];
		*slot = sh->nv;
		e->anchor = p[k];
		e->first = (uint32_t)(base + k + 1);
		e->n = (uint32_t)(n - k - 1);
		e->ambiguous = false;
	}
	free(p);
	return err;
}

bool pd_outer_shared_find(const pd_outer_shared *sh, pd_machine *m, int32_t pid, uint64_t pc,
			  uint64_t *out, size_t max, size_t *n)
{
	const struct pd_shared_entry *e;
	struct pd_place p;

	*n = 0;
	if (!sh->nv || !place_of(m, pid, pc, &p) || !(e = entry_get(sh, p)) || e->ambiguous ||
	    e->n > max)
		return false;
	for (uint32_t i = 0; i < e->n; i++)
		if (!address_of(m, pid, sh->pool[e->first + i], &out[(*n)++]))
			return false;
	return true;
}

void pd_outer_shared_release(pd_outer_shared *sh)
{
	pd_u64map_release(&sh->index);
	free(sh->v);
	free(sh->pool);
	memset(sh, 0, sizeof(*sh));
}
