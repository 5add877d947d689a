/* Slice arithmetic for --slice auto: its candidates; see slice.h. */
#include "slice.h"

size_t lb_slice_candidates(uint64_t bytes, uint64_t out[LB_SLICE_CANDIDATES_MAX])
{
	size_t n = 0;
	for (uint64_t c = LB_SLICE_AUTO_FLOOR; c < bytes; c *= 2) {
		out[n++] = c;
		if (c > UINT64_MAX / 2)
			break;
	}
	out[n++] = bytes;
	return n;
}
