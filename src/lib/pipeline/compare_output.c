/* Differential graph of two folded profiles: joined in memory into one
 * differential fg_folded, which is rendered (and written as text where a
 * file of it is asked for). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/compare.h"
#include "flamegraph/error.h"
#include "util/outfile.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/version.h"
#include "util/banned.h"

/* The differential stacks as text (the user asked for a file of them). */
static int write_text(const char *path, const fg_folded *diff)
{
	fg_outfile *of = NULL;
	int err = fg_outfile_open(&of, path);

	if (!err && !(err = fg_diff_folded_write_stacks(diff, fg_outfile_stream(of)))) {
		err = fg_outfile_commit(of);
		of = NULL;
	}
	fg_outfile_abort(of);
	return err;
}

static int write_graph(const char *path, const fg_folded *diff, const fg_render_opts *ro,
		       bool html)
{
	fg_outfile *of = NULL;
	int err = fg_outfile_open(&of, path);

	if (!err && !(err = html ? fg_render_html(diff, ro, fg_outfile_stream(of)) :
				   fg_render_svg(diff, ro, fg_outfile_stream(of)))) {
		err = fg_outfile_commit(of);
		of = NULL;
	}
	fg_outfile_abort(of);
	return err;
}

FG_OPTS_INIT_FUNCTION(fg_compare_opts, FG_COMPARE_OPTS_VERSION, FG_COMPARE_OPTS_INIT)

int fg_compare_write_stacks(const fg_folded *before, const fg_folded *after, const char *output,
			    const fg_compare_opts *opts)
{
	fg_folded *diff = NULL;
	int err;

	if ((err = fg_opts_version_check("fg_compare_opts", opts->version,
					 FG_COMPARE_OPTS_VERSION)))
		return err;
	if (opts->format == FG_OUTPUT_JSON || opts->format == FG_OUTPUT_PPROF ||
	    opts->format == FG_OUTPUT_NONE)
		return fg_error_set(FG_EINVAL, "a differential graph has no %s form — "
				    "use `opts.format=svg` or `opts.format=folded` with `opts.compare.rev`",
				    opts->format == FG_OUTPUT_PPROF ? "pprof" : "speedscope");
	if ((err = fg_render_opts_check(&opts->render)) ||
	    (err = fg_diff_folded(&diff, before, after, &opts->diff)))
		goto done;
	if (opts->folded_out && (err = write_text(opts->folded_out, diff)))
		goto done;
	err = opts->format == FG_OUTPUT_FOLDED ? write_text(output, diff) :
	      write_graph(output, diff, &opts->render, opts->format == FG_OUTPUT_HTML);
done:
	fg_folded_free(diff);
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
	if (!err && !(*dir_out = fg_strbuf_detach(&dir, NULL)))
		err = FG_ENOMEM;
	fg_strbuf_release(&dir);
	fg_strbuf_release(&tmp);
	return err;
}
