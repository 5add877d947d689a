/* lanebench platform gen g5k|x5|x10: seed 002's clusters of clusters
 * (algos/clustergen.h) written as a platform file. */
#ifndef LB_PLATFORM_CLUSTERS_H
#define LB_PLATFORM_CLUSTERS_H

#include "algos/clustergen.h"
#include "cli.h"

/* Writes the platform of g to output (NULL or "-": stdout) with the
 * generator's line after the magic line.  Returns an exit status. */
int lb_platform_gen_clusters(const struct lb_cmd *cmd, const struct lb_clustergen *g,
			     const char *output);

#endif
