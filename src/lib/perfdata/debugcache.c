/* Uncompressed copies of compressed DWARF, kept in a cache folder.
 *
 * Distributions ship debug files with compressed sections
 * (SHF_COMPRESSED), and libdw inflates all of them whenever a file is
 * opened: for glibc's debug file some 90 ms of CPU in every run, more
 * than the rest of reading a typical recording. The copy holds the
 * file's .debug_* sections only, uncompressed, in an ELF of its own
 * named after the build id (CACHE/<build id>.debug); it is written once,
 * under a temporary name renamed into place (so that runs at the same
 * time never see half a file), and mapped by every later run. A copy
 * that cannot be read is written again; a folder that cannot be written
 * only costs the time saved. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/perfdata/internal.h"
#include "util/strbuf.h"
#include "util/banned.h"

/* Copies larger than this are not written: the cache is for the debug
 * files every recording meets (libc's is 10 MB), not for any giant. */
#define MAX_COPY ((uint64_t)512 << 20)

static bool is_debug_section(const char *name)
{
	return name && !strncmp(name, ".debug_", 7);
}

/* Whether elf has a compressed .debug_* section. */
bool pd_debugcache_wanted(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED) &&
		    is_debug_section(elf_strptr(elf, shstrndx, sh.sh_name)))
			return true;
	return false;
}

/* mkdir -p of path's folders and path itself. */
static int make_dirs(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

/* A section of out named name, holding size bytes of buf. */
static bool add_section(Elf *out, size_t name_off, const GElf_Shdr *from, void *buf, size_t size)
{
	Elf_Scn *scn = elf_newscn(out);
	Elf_Data *d;
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || !(d = elf_newdata(scn)))
		return false;
	sh.sh_name = name_off;
	sh.sh_type = from ? from->sh_type : SHT_STRTAB;
	sh.sh_flags = from ? from->sh_flags & ~(GElf_Xword)SHF_COMPRESSED : 0;
	sh.sh_addralign = 1;
	sh.sh_entsize = from ? from->sh_entsize : 0;
	d->d_buf = buf;
	d->d_size = size;
	d->d_type = ELF_T_BYTE;
	d->d_align = 1;
	return gelf_update_shdr(scn, &sh) != 0;
}

/* Writes the .debug_* sections of src, uncompressed (src's sections are
 * inflated in place), as an ELF to fd. */
static bool write_copy(Elf *src, int fd)
{
	Elf *out = elf_begin(fd, ELF_C_WRITE, NULL);
	fg_strbuf names = FG_STRBUF_INIT;
	Elf_Scn *scn = NULL;
	GElf_Ehdr seh, eh;
	size_t shstrndx, n;
	uint64_t total = 0;
	bool ok = false;

	if (!out || !gelf_getehdr(src, &seh) || elf_getshdrstrndx(src, &shstrndx) ||
	    !gelf_newehdr(out, gelf_getclass(src)) || !gelf_getehdr(out, &eh))
		goto done;
	memcpy(eh.e_ident, seh.e_ident, EI_NIDENT);
	eh.e_type = seh.e_type;
	eh.e_machine = seh.e_machine;
	eh.e_version = seh.e_version;
	fg_strbuf_addch(&names, '\0');
	while ((scn = elf_nextscn(src, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;
		size_t off = names.len;
		if (!gelf_getshdr(scn, &sh) || !is_debug_section(name = elf_strptr(src, shstrndx, sh.sh_name)) ||
		    sh.sh_type == SHT_NOBITS)
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && (elf_compress(scn, 0, 0) < 0 || !gelf_getshdr(scn, &sh)))
			goto done;
		if (!(d = elf_getdata(scn, NULL)) || (total += d->d_size) > MAX_COPY)
			goto done;
		if (fg_strbuf_add(&names, name, strlen(name) + 1) ||
		    !add_section(out, off, &sh, d->d_buf, d->d_size))
			goto done;
	}
	/* the names last: they are complete only now */
	if (fg_strbuf_add(&names, ".shstrtab", 10) ||
	    !add_section(out, names.len - 10, NULL, names.buf, names.len) || elf_getshdrnum(out, &n))
		goto done;
	eh.e_shstrndx = (GElf_Half)(n - 1);
	ok = gelf_update_ehdr(out, &eh) && elf_update(out, ELF_C_WRITE) >= 0;
done:
	if (out)
		elf_end(out);
	fg_strbuf_release(&names);
	return ok;
}

/* An ELF of the cache that holds DWARF (libdw will read it), or NULL. */
static Elf *open_copy(const char *path, int *fd)
{
	Elf *elf;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	if ((elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL)) && elf_kind(elf) == ELF_K_ELF &&
	    !elf_getshdrstrndx(elf, &shstrndx)) {
		while ((scn = elf_nextscn(elf, scn))) {
			const char *n;
			if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
			    !strcmp(n, ".debug_info") && !(sh.sh_flags & SHF_COMPRESSED))
				return elf;
		}
	}
	if (elf)
		elf_end(elf);
	close(*fd);
	*fd = -1;
	return NULL;
}

bool pd_cache_write(const char *dir, const char *name, const struct iovec *parts, int nparts)
{
	fg_strbuf path = FG_STRBUF_INIT, tmp = FG_STRBUF_INIT;
	bool done = false;
	int fd = -1, i;

	if (!dir || !*dir || fg_strbuf_addf(&path, "%s/%s", dir, name) ||
	    fg_strbuf_addstr(&tmp, dir) || make_dirs(tmp.buf) ||
	    fg_strbuf_addf(&tmp, "/.%s.XXXXXX", name) || (fd = mkstemp(tmp.buf)) < 0)
		goto out;
	for (i = 0; i < nparts; i++) {
		const char *p = parts[i].iov_base;
		size_t left = parts[i].iov_len;
		while (left) {
			ssize_t n = write(fd, p, left);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			p += n;
			left -= (size_t)n;
		}
		if (left)
			break;
	}
	done = i == nparts && !fsync(fd) && !rename(tmp.buf, path.buf);
	if (!done)
		unlink(tmp.buf);
out:
	if (fd >= 0)
		close(fd);
	fg_strbuf_release(&path);
	fg_strbuf_release(&tmp);
	return done;
}

Elf *pd_debugcache_open(const char *dir, const char *hex_build_id, Elf *src, int *fd)
{
	fg_strbuf path = FG_STRBUF_INIT, tmp = FG_STRBUF_INIT;
	Elf *elf = NULL;
	int tfd = -1;

	*fd = -1;
	if (!dir || !*dir || !*hex_build_id ||
	    fg_strbuf_addf(&path, "%s/%s.debug", dir, hex_build_id))
		goto done;
	if ((elf = open_copy(path.buf, fd)))
		goto done;
	if (fg_strbuf_addstr(&tmp, dir) || make_dirs(tmp.buf) ||
	    fg_strbuf_addf(&tmp, "/.%s.XXXXXX", hex_build_id) || (tfd = mkstemp(tmp.buf)) < 0)
		goto done;
	if (!write_copy(src, tfd) || fsync(tfd) || rename(tmp.buf, path.buf)) {
		unlink(tmp.buf);
		goto done;
	}
	elf = open_copy(path.buf, fd);
done:
	if (tfd >= 0)
		close(tfd);
	fg_strbuf_release(&path);
	fg_strbuf_release(&tmp);
	return elf;
}
