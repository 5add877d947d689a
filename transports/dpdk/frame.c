/* The DPDK transport's frame format; see frame.h. */
#include "frame.h"

#include <string.h>

uint64_t lb_frame_job_hash(const char *token)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const unsigned char *p = (const unsigned char *)token; p && *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	return h;
}

static uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

int lb_frame_in_range(uint64_t off, uint64_t len, uint64_t lo, uint64_t span)
{
	return off >= lo && off - lo <= span && len <= span - (off - lo);
}

size_t lb_frame_encode(const struct lb_frame *f, uint8_t *out)
{
	uint8_t *h = out + LB_FRAME_ETH_LEN;
	memcpy(out, f->dst_mac, 6);
	memcpy(out + 6, f->src_mac, 6);
	put_be(out + 12, LB_FRAME_ETHER_TYPE, 2);
	h[0] = LB_FRAME_WIRE_VERSION;
	h[1] = f->type;
	put_be(h + 2, f->lane, 2);
	put_be(h + 4, f->src, 4);
	put_be(h + 8, f->job, 8);
	put_be(h + 16, f->seq, 4);
	put_be(h + 20, f->msg, 4);
	put_be(h + 24, f->offset, 8);
	put_be(h + 32, f->len, 4);
	put_be(h + 36, f->dst, 4);
	if (f->type != LB_FRAME_ACK)
		return LB_FRAME_OVERHEAD;
	memcpy(h + LB_FRAME_HDR_LEN, f->sack, LB_FRAME_SACK_LEN);
	return LB_FRAME_ACK_LEN;
}

static void decode(const uint8_t *frame, struct lb_frame *f)
{
	const uint8_t *h = frame + LB_FRAME_ETH_LEN;
	memcpy(f->dst_mac, frame, 6);
	memcpy(f->src_mac, frame + 6, 6);
	f->type = h[1];
	f->lane = (uint16_t)get_be(h + 2, 2);
	f->src = (uint32_t)get_be(h + 4, 4);
	f->job = get_be(h + 8, 8);
	f->seq = (uint32_t)get_be(h + 16, 4);
	f->msg = (uint32_t)get_be(h + 20, 4);
	f->offset = get_be(h + 24, 8);
	f->len = (uint32_t)get_be(h + 32, 4);
	f->dst = (uint32_t)get_be(h + 36, 4);
	f->payload = NULL;
}

/* Type-specific checks of a decoded frame of this job, to this rank. */
static enum lb_frame_verdict check_body(const uint8_t *frame, size_t len,
					const struct lb_frame_expect *e, struct lb_frame *f)
{
	if (f->type == LB_FRAME_ACK) {
		if (f->len != 0 || f->offset != 0)
			return LB_FRAME_MALFORMED;
		if (len < LB_FRAME_ACK_LEN)
			return LB_FRAME_SHORT;
		memcpy(f->sack, frame + LB_FRAME_OVERHEAD, LB_FRAME_SACK_LEN);
		return LB_FRAME_OK;
	}
	if (f->type != LB_FRAME_DATA || f->len > LB_FRAME_PAYLOAD_MAX)
		return LB_FRAME_MALFORMED;
	if (len - LB_FRAME_OVERHEAD < f->len)
		return LB_FRAME_SHORT;
	if (!lb_frame_in_range(f->offset, f->len, 0, e->buflen))
		return LB_FRAME_RANGE;
	f->payload = frame + LB_FRAME_OVERHEAD;
	return LB_FRAME_OK;
}

enum lb_frame_verdict lb_frame_parse(const uint8_t *frame, size_t len,
				     const struct lb_frame_expect *e, struct lb_frame *f)
{
	if (len < LB_FRAME_ETH_LEN)
		return LB_FRAME_SHORT;
	if (get_be(frame + 12, 2) != LB_FRAME_ETHER_TYPE)
		return LB_FRAME_ETHERTYPE;
	if (len < LB_FRAME_OVERHEAD)
		return LB_FRAME_SHORT;
	if (frame[LB_FRAME_ETH_LEN] != LB_FRAME_WIRE_VERSION)
		return LB_FRAME_VERSION;
	struct lb_frame tmp;
	decode(frame, &tmp);
	if (tmp.job != e->job)
		return LB_FRAME_JOB;
	if (tmp.dst != e->rank || tmp.lane != e->lane || tmp.src >= e->size ||
	    tmp.src == e->rank)
		return LB_FRAME_NOT_MINE;
	enum lb_frame_verdict v = check_body(frame, len, e, &tmp);
	if (v == LB_FRAME_OK)
		*f = tmp;
	return v;
}

const char *lb_frame_verdict_name(enum lb_frame_verdict v)
{
	static const char *const names[LB_FRAME_VERDICTS] = {
		"ok", "short", "ethertype", "version", "job", "not_mine", "malformed", "range",
	};
	return v < LB_FRAME_VERDICTS ? names[v] : "unknown";
}
