/* Differential graph of two folded profiles: join, then render. The
 * joined text is kept in memory (one line per distinct stack, small next
 * to the recordings) so that the SVG and the folded copy come from one
 * join. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/compare.h"
#include "flamegraph/error.h"
#include "util/outfile.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/banned.h"

static int read_folded(fg_folded **out, const char *path)
{
	int err = fg_folded_new(out);
	return err ? err : fg_folded_read_file(*out, path);
}

/* Writes len bytes of text to path atomically. */
static int write_text(const char *path, const char *text, size_t len)
{
	fg_outfile *of = NULL;
	int err = fg_outfile_open(&of, path);

	if (err)
		return err;
	if (len && fwrite(text, 1, len, fg_outfile_stream(of)) != len) {
		int e = errno;

		fg_outfile_abort(of);
		return fg_error_set(FG_EIO, "cannot write %s: %s", path, strerror(e));
	}
	return fg_outfile_commit(of);
}

static int write_svg(const char *path, const char *text, size_t len, const fg_render_opts *ro)
{
	fg_folded *f = NULL;
	fg_outfile *of = NULL;
	int err;

	if ((err = fg_folded_new(&f)) || (err = fg_folded_feed(f, text, len)) ||
	    (err = fg_folded_finish(f)) || (err = fg_outfile_open(&of, path)))
		goto done;
	if ((err = fg_render_svg(f, ro, fg_outfile_stream(of))))
		goto done;
	err = fg_outfile_commit(of);
	of = NULL;
done:
	fg_outfile_abort(of);
	fg_folded_free(f);
	return err;
}

int fg_compare_write(const char *before, const char *after, const char *output,
		     const fg_compare_opts *opts)
{
	fg_folded *b = NULL, *a = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = NULL;
	int err;

	if (opts->format == FG_OUTPUT_JSON)
		return fg_error_set(FG_EINVAL, "a differential graph has no speedscope form — "
				    "use --format svg or --format folded with --compare");
	if ((err = fg_render_opts_check(&opts->render)) || (err = read_folded(&b, before)) ||
	    (err = read_folded(&a, after)))
		goto done;
	if (!(mem = open_memstream(&text, &len))) {
		err = FG_ENOMEM;
		goto done;
	}
	err = fg_diff_folded_write(b, a, &opts->diff, mem);
	if (fclose(mem) != 0 && !err)
		err = FG_ENOMEM;
	if (err)
		goto done;
	if (opts->folded_out && (err = write_text(opts->folded_out, text, len)))
		goto done;
	if (opts->format == FG_OUTPUT_FOLDED)
		err = write_text(output, text, len);
	else
		err = write_svg(output, text, len, &opts->render);
done:
	free(text);
	fg_folded_free(b);
	fg_folded_free(a);
	return err;
}

int fg_compare_export(char **dir_out, bool *reused, fg_git_export_result *res,
		      const char *base, const char *repo_path, const char *id)
{
	fg_strbuf dir = FG_STRBUF_INIT, tmp = FG_STRBUF_INIT;
	int err;

	*dir_out = NULL;
	*reused = false;
	fg_strbuf_addf(&dir, "%s/compare/%.12s", base, id);
	fg_strbuf_addf(&tmp, "%s/compare", base);
	if (fg_path_is_dir(dir.buf)) {
		*reused = true;
		err = 0;
		goto done;
	}
	if ((err = fg_mkdir_p(tmp.buf)))
		goto done;
	fg_strbuf_addf(&tmp, "/.%.12s.XXXXXX", id);
	if (!mkdtemp(tmp.buf)) {
		err = fg_error_set(FG_EIO, "cannot create a folder in %s/compare", base);
		goto done;
	}
	if ((err = fg_git_export(res, repo_path, id, tmp.buf)))
		goto done;
	/* a concurrent run may have won the race: its export is as good */
	if (rename(tmp.buf, dir.buf) != 0 && !fg_path_is_dir(dir.buf))
		err = fg_error_set(FG_EIO, "cannot rename %s to %s", tmp.buf, dir.buf);
done:
	if (!err)
		*dir_out = fg_strbuf_detach(&dir, NULL);
	fg_strbuf_release(&dir);
	fg_strbuf_release(&tmp);
	return err;
}
