/* Seed 003's Figs. 7 and 8 reproduced in the simulator (what `lanebench repro
 * seed003-fig8` runs; docs/papers.md#reproductions).  The network of section
 * 6.2: 32 nodes of two gigabit NICs (k = 2, 125 MB/s a lane), 128 KiB slices, l
 * = 50 us per hop and, for Fig. 8, two sites of 16 nodes joined by L = 10 ms --
 * both time in flight (model/sim.h), so a pipelined stream pays them once per
 * path.
 *
 * Fig. 8 (two sites): per message size the ratios binary/multilane,
 * binary/chain, binomial/multilane and chain/multilane beside the paper's
 * reading ("about three times", "about four times", multi-lane as good as the
 * chain) and the target range (docs/papers.md#reproductions); the verdict is
 * given at large messages (>= 128 MiB, where the paper states them), "-" below.
 * Fig. 7 (one site): sim(chain) - sim(multilane), which the paper finds
 * constant ("50 ms was always added to multi-lane without depending on the
 * message size", on its own network): each size's gap against the mean gap over
 * the sizes, within 5 %. */
#ifndef LB_REPRO003_H
#define LB_REPRO003_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/result.h"

struct lb_repro003_params {
	const uint64_t *sizes; /* message sizes, bytes, ascending */
	size_t nsizes;
	const struct lb_prov *prov; /* the caller's; NULL: none */
	const atomic_int *stop;     /* non-zero: stop before the next size */
};

/* The result columns; static storage. */
const struct lb_col *lb_repro003_columns(size_t *ncols);

/* Runs both figures, rows to sink (Fig. 8's per size, then Fig. 7's).
 * Returns 0 (also when stopped), or -1 with the reason in err (a builder
 * or the simulator failing, the sink's failure). */
int lb_repro003_run(const struct lb_repro003_params *p, const struct lb_sink *sink,
		    char *err, size_t errlen);

#endif
