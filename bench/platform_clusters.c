/* platform gen g5k|x5|x10 (platform_clusters.h). */
#include "platform_clusters.h"

#include <stdlib.h>
#include <string.h>

#include "report/outfile.h"

static int write_clusters(FILE *f, const struct lb_clustergen *g, const struct lb_platform *pf)
{
	char *text = lb_platform_format(pf), line[400];
	if (!text)
		return -1;
	char *rest = strchr(text, '\n');
	rest = rest ? rest + 1 : text + strlen(text);
	lb_clustergen_describe(g, line, sizeof(line));
	fprintf(f, "%.*s# %s\n# seed 002 (SPEC 3.4): coordinator links and wan lines carry L and "
		"bytes/g, each site's links make a whole-message binomial take its local-bcast\n",
		(int)(rest - text), text, line);
	fputs(rest, f);
	free(text);
	return 0;
}

int lb_platform_gen_clusters(const struct lb_cmd *cmd, const struct lb_clustergen *g,
			     const char *output)
{
	char err[512];
	struct lb_platform *pf = lb_clustergen_make(g, err, sizeof(err));
	if (!pf) {
		lb_cli_error(cmd, NULL, "%s", err);
		return LB_EXIT_USAGE;
	}
	struct lb_outfile out;
	int rc = LB_EXIT_FAILED;
	if (lb_outfile_open(&out, output, err, sizeof(err)) != 0)
		lb_cli_error(cmd, "output", "%s", err);
	else if (write_clusters(out.f, g, pf) || lb_outfile_check(&out, err, sizeof(err))) {
		lb_outfile_abort(&out);
		lb_cli_error(cmd, "output", "%s", err);
	} else if (lb_outfile_finish(&out, err, sizeof(err)) != 0)
		lb_cli_error(cmd, "output", "%s", err);
	else
		rc = 0;
	lb_platform_free(pf);
	return rc;
}
