/* lanebench repro seed003-fig8; see cmd_repro_seed003.h. */
#include "cmd_repro_seed003.h"

#include "repro/repro003.h"
#include "lib/stop.h"
#include "repro_out.h"

#define MIB (1ull << 20)

/* CI-sized: the ratios' large sizes (128, 256 MiB) and two small ones. */
static const uint64_t QUICK_SIZES[] = { 1 * MIB, 16 * MIB, 128 * MIB, 256 * MIB };
/* --full: 1 MiB to 512 MiB, doubling (the paper's range;
 * docs/papers.md#reproductions). */
static const uint64_t FULL_SIZES[] = { 1 * MIB, 2 * MIB, 4 * MIB, 8 * MIB, 16 * MIB,
				       32 * MIB, 64 * MIB, 128 * MIB, 256 * MIB, 512 * MIB };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

int lb_repro_seed003_fig8(const struct lb_cmd *cmd, const void *opts, int full,
			  const char *output, const char *json_path)
{
	struct lb_repro003_params p = {
		.sizes = full ? FULL_SIZES : QUICK_SIZES,
		.nsizes = full ? COUNT(FULL_SIZES) : COUNT(QUICK_SIZES), .stop = lb_stop_flag(),
	};
	struct lb_prov prov = { 0 };
	struct lb_cli_json json = { .path = json_path };
	struct lb_csv *csv = NULL;
	size_t ncols;
	char err[768];
	if (lb_cli_check_stdout(cmd, &json, output))
		return LB_EXIT_USAGE;
	lb_cli_provenance(&prov, cmd, opts);
	p.prov = &prov;
	const struct lb_col *cols = lb_repro003_columns(&ncols);
	if (output && !(csv = lb_csv_create(output, &prov, cols, ncols, err, sizeof(err)))) {
		lb_cli_error(cmd, "output", "%s", err);
		lb_prov_free(&prov);
		return LB_EXIT_FAILED;
	}
	lb_stop_arm();
	struct lb_repro_out out;
	lb_repro_out_init(&out, csv, &json);
	int rc = lb_repro003_run(&p, &out.sink, err, sizeof(err));
	lb_repro_out_legend(&out);
	if (rc)
		lb_cli_error(cmd, NULL, "%s", err);
	lb_prov_free(&prov);
	int json_rc = lb_cli_finish_json(cmd, &json, rc, err);
	rc = lb_cli_finish_csv(cmd, csv, rc, err);
	return rc ? rc : json_rc;
}
