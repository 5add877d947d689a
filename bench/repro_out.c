/* The repro experiments' sinks; see repro_out.h. */
#include "repro_out.h"

#include "lib/stop.h"

void lb_repro_out_init(struct lb_repro_out *out, struct lb_csv *csv, struct lb_cli_json *json)
{
	size_t n = 0;
	out->table = (struct lb_table){ .out = lb_cli_json_to_stdout(json) ? stderr : stdout };
	out->sinks[n++] = (struct lb_sink){ .begin = lb_table_sink_begin, .row = lb_table_sink_row,
					    .ctx = &out->table };
	if (csv)
		out->sinks[n++] = (struct lb_sink){ .row = lb_csv_sink_row, .ctx = csv };
	if (json->path)
		out->sinks[n++] = lb_cli_json_sink(json);
	out->tee = (struct lb_tee){ out->sinks, n };
	out->sink = (struct lb_sink){ .provenance = lb_tee_provenance, .begin = lb_tee_begin,
				      .row = lb_tee_row, .ctx = &out->tee };
}

void lb_repro_out_legend(struct lb_repro_out *out)
{
	if (!lb_stop_requested())
		lb_table_legend(&out->table);
}
