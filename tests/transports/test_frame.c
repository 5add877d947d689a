/* The frame parser (transports/dpdk/frame.c): round trip, and every drop
 * reason on a crafted frame. */
#include <stdint.h>

#include "tests/check.h"
#include "transports/dpdk/frame.h"

static const struct lb_frame_expect expect = {
	.job = 0, .rank = 1, .size = 4, .lane = 1, .buflen = 1 << 20,
};

static size_t make(uint8_t *buf, const struct lb_frame *f, uint32_t payload)
{
	size_t n = lb_frame_encode(f, buf);
	for (uint32_t i = 0; i < payload; i++)
		buf[n + i] = (uint8_t)i;
	return n + payload;
}

static struct lb_frame data(uint64_t job)
{
	return (struct lb_frame){ .type = LB_FRAME_DATA, .lane = 1, .src = 2, .dst = 1, .job = job,
				  .seq = 7, .msg = 3, .offset = 4096, .len = 100 };
}

static void test_round_trip(uint64_t job)
{
	uint8_t buf[2048];
	struct lb_frame f = data(job), g;
	size_t n = make(buf, &f, 100);
	CHECK(lb_frame_parse(buf, n, &expect, &g) == LB_FRAME_OK, "DATA parses");
	CHECK(g.seq == 7 && g.msg == 3 && g.offset == 4096 && g.len == 100 && g.src == 2,
	      "fields survive");
	CHECK(g.payload == buf + LB_FRAME_OVERHEAD, "payload after the header");
	/* Ethernet padding: longer than needed is fine */
	CHECK(lb_frame_parse(buf, n + 20, &expect, &g) == LB_FRAME_OK, "padded DATA parses");
	struct lb_frame a = { .type = LB_FRAME_ACK, .lane = 1, .src = 3, .dst = 1, .job = job,
			      .seq = 42 };
	a.sack[0] = 0x5;
	a.sack[31] = 0x80;
	n = make(buf, &a, 0);
	CHECK(n == LB_FRAME_ACK_LEN, "ACK length");
	CHECK(lb_frame_parse(buf, n, &expect, &g) == LB_FRAME_OK && g.seq == 42 &&
	      g.sack[0] == 0x5 && g.sack[31] == 0x80, "ACK parses with its bitmap");
	CHECK(lb_frame_parse(buf, n - 1, &expect, &g) == LB_FRAME_SHORT, "cut ACK is short");
}

static enum lb_frame_verdict verdict(struct lb_frame f, uint32_t payload, size_t cut)
{
	uint8_t buf[2048];
	struct lb_frame g;
	size_t n = make(buf, &f, payload);
	return lb_frame_parse(buf, n - cut, &expect, &g);
}

static void test_drops(void)
{
	struct lb_frame f = data(0);
	uint8_t buf[2048];
	struct lb_frame g;
	CHECK(verdict(f, 100, 1) == LB_FRAME_SHORT, "truncated payload");
	CHECK(verdict(f, 100, 100 + 39) == LB_FRAME_SHORT, "truncated header");
	f = data(1);
	CHECK(verdict(f, 100, 0) == LB_FRAME_JOB, "another job");
	f = data(0), f.dst = 2;
	CHECK(verdict(f, 100, 0) == LB_FRAME_NOT_MINE, "another destination");
	f = data(0), f.lane = 0;
	CHECK(verdict(f, 100, 0) == LB_FRAME_NOT_MINE, "another lane");
	f = data(0), f.src = 4;
	CHECK(verdict(f, 100, 0) == LB_FRAME_NOT_MINE, "source outside the job");
	f = data(0), f.src = 1;
	CHECK(verdict(f, 100, 0) == LB_FRAME_NOT_MINE, "source is ourselves");
	f = data(0), f.type = 9;
	CHECK(verdict(f, 100, 0) == LB_FRAME_MALFORMED, "unknown type");
	f = data(0), f.offset = (1 << 20) - 50;
	CHECK(verdict(f, 100, 0) == LB_FRAME_RANGE, "beyond the buffer");
	f = data(0), f.offset = UINT64_MAX - 10;
	CHECK(verdict(f, 100, 0) == LB_FRAME_RANGE, "offset overflow");
	f = data(0);
	size_t n = make(buf, &f, 100);
	buf[12] = 0x08, buf[13] = 0x00;
	CHECK(lb_frame_parse(buf, n, &expect, &g) == LB_FRAME_ETHERTYPE, "IPv4 frame");
	buf[12] = 0x88, buf[13] = 0xB5, buf[14] = 2;
	CHECK(lb_frame_parse(buf, n, &expect, &g) == LB_FRAME_VERSION, "version 2");
	CHECK(lb_frame_parse(buf, 5, &expect, &g) == LB_FRAME_SHORT, "5 bytes");
}

/* The largest DATA frame a 64000-byte MTU carries parses, byte for byte;
 * one byte cut is short, and a length beyond the format's maximum is
 * malformed whatever the frame's length. */
static void test_jumbo(void)
{
	static uint8_t buf[LB_FRAME_ETH_LEN + LB_FRAME_MTU_MAX + 64];
	struct lb_frame f = data(0), g;
	f.offset = 0, f.len = LB_FRAME_PAYLOAD_MAX;
	size_t n = make(buf, &f, f.len);
	CHECK(n == LB_FRAME_ETH_LEN + LB_FRAME_MTU_MAX, "largest frame fills the MTU");
	int same = lb_frame_parse(buf, n, &expect, &g) == LB_FRAME_OK && g.len == f.len;
	for (uint32_t i = 0; same && i < f.len; i++)
		same = g.payload[i] == (uint8_t)i;
	CHECK(same, "largest DATA frame parses, payload intact");
	CHECK(lb_frame_parse(buf, n - 1, &expect, &g) == LB_FRAME_SHORT, "cut largest frame is short");
	f.len = LB_FRAME_PAYLOAD_MAX + 1;
	n = make(buf, &f, f.len);
	CHECK(lb_frame_parse(buf, n, &expect, &g) == LB_FRAME_MALFORMED, "payload beyond the maximum");
}

static void test_range(void)
{
	CHECK(lb_frame_in_range(10, 5, 10, 5), "exact fit");
	CHECK(!lb_frame_in_range(9, 5, 10, 5), "starts before");
	CHECK(!lb_frame_in_range(11, 5, 10, 5), "ends after");
	CHECK(!lb_frame_in_range(UINT64_MAX, 2, 0, UINT64_MAX), "wraps");
	CHECK(lb_frame_in_range(15, 0, 10, 5), "empty at the end");
	CHECK(lb_frame_job_hash("abc") != lb_frame_job_hash("abd"), "tokens differ");
}

int main(void)
{
	test_round_trip(0);
	test_drops();
	test_jumbo();
	test_range();
	return check_status("frame");
}
