/* libFuzzer target for the frame parser: any bytes, any length; a frame it
 * accepts must be consistent (payload inside the input, range inside the
 * buffer), and encoding what it parsed must parse to the same fields. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "transports/dpdk/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_frame_expect e = { .job = 0, .rank = 1, .size = 8, .lane = 0, .buflen = 65536 };
	if (size >= 2) { /* let the input choose the expectations a little */
		e.lane = data[0] & 1;
		e.rank = data[1] & 7;
	}
	struct lb_frame f, g;
	if (lb_frame_parse(data, size, &e, &f) != LB_FRAME_OK)
		return 0;
	if (f.type == LB_FRAME_DATA &&
	    (f.len > LB_FRAME_PAYLOAD_MAX || f.payload < data || f.payload + f.len > data + size ||
	     !lb_frame_in_range(f.offset, f.len, 0, e.buflen)))
		abort();
	uint8_t buf[LB_FRAME_ACK_LEN + 64];
	size_t n = lb_frame_encode(&f, buf);
	if (f.type == LB_FRAME_DATA) {
		/* the re-encoded header without its payload: only check fields */
		f.len = 0;
		n = lb_frame_encode(&f, buf);
	}
	if (lb_frame_parse(buf, n, &e, &g) != LB_FRAME_OK || g.seq != f.seq || g.src != f.src ||
	    g.msg != f.msg || g.offset != f.offset || g.type != f.type ||
	    memcmp(g.sack, f.sack, f.type == LB_FRAME_ACK ? sizeof(g.sack) : 0) != 0)
		abort();
	return 0;
}
