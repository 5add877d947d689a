/* The DPDK transport's receive side (transports/dpdk/rx.c): frames land in
 * their posted receives, early ones wait in the stash, and receives
 * complete in order once their bytes arrived. */
#include <stdlib.h>

#include "tests/check.h"
#include "transports/dpdk/rx.h"

#define BUFLEN 4096

static uint8_t sent[BUFLEN]; /* what the sender's buffer holds */

static void fill_sent(unsigned seed)
{
	srand(seed);
	for (size_t i = 0; i < BUFLEN; i++)
		sent[i] = (uint8_t)(rand() | 1);
}

/* A DATA frame of message msg carrying sent[off, off + len). */
static struct lb_frame data(uint32_t seq, uint32_t msg, uint64_t off, uint32_t len)
{
	return (struct lb_frame){ .type = LB_FRAME_DATA, .seq = seq, .msg = msg, .offset = off,
				  .len = len, .payload = sent + (off < BUFLEN ? off : 0) };
}

static enum lb_rx_verdict offer(struct lb_rx_chan *c, uint8_t *buf, uint32_t seq, uint32_t msg,
				uint64_t off, uint32_t len)
{
	struct lb_frame f = data(seq, msg, off, len);
	return lb_rx_data(c, buf, &f);
}

static void test_in_order(void)
{
	struct lb_rx_chan c;
	uint8_t buf[BUFLEN] = { 0 };
	uint32_t id;
	lb_rx_chan_init(&c);
	CHECK(lb_rx_post(&c, 0, 300, 7) == 0 && lb_rx_post(&c, 1000, 100, 8) == 0, "posted");
	CHECK(offer(&c, buf, 0, 0, 0, 200) == LB_RX_TAKEN, "first frame taken");
	CHECK(!lb_rx_complete(&c, &id), "200 of 300 bytes: not complete");
	CHECK(offer(&c, buf, 1, 1, 1000, 100) == LB_RX_TAKEN, "second receive's frame taken");
	CHECK(!lb_rx_complete(&c, &id), "the first receive still holds the second back");
	CHECK(offer(&c, buf, 2, 0, 200, 100) == LB_RX_TAKEN, "last frame of the first taken");
	CHECK(lb_rx_complete(&c, &id) && id == 7, "first complete");
	CHECK(lb_rx_complete(&c, &id) && id == 8, "then the second");
	CHECK(!lb_rx_complete(&c, &id) && lb_rx_pending(&c) == 0, "nothing left");
	CHECK(memcmp(buf, sent, 300) == 0 && memcmp(buf + 1000, sent + 1000, 100) == 0,
	      "bytes as sent");
	CHECK(offer(&c, buf, 1, 1, 1000, 100) == LB_RX_DUP, "a seq again is a duplicate");
	CHECK(offer(&c, buf, 3, 0, 0, 10) == LB_RX_RANGE, "a new frame of a finished message");
	CHECK(offer(&c, buf, 3 + LB_REL_WINDOW, 2, 0, 10) == LB_RX_AHEAD, "beyond the window");
	lb_rx_chan_clear(&c);
}

/* A frame of a receive not posted yet waits in the stash, then lands. */
static void test_early(void)
{
	struct lb_rx_chan c;
	struct lb_rx_stash *s = calloc(1, sizeof(*s));
	struct lb_rx_early e[LB_RX_STASH_MAX];
	uint8_t buf[BUFLEN] = { 0 };
	struct lb_frame f = data(0, 0, 64, 64);
	uint32_t id;
	lb_rx_chan_init(&c);
	CHECK(lb_rx_data(&c, buf, &f) == LB_RX_EARLY, "nothing posted: early");
	CHECK(buf[64] == 0, "an early frame writes nothing");
	CHECK(lb_rx_stash_hold(s, &f, 1.0) == 0 && s->n == 1, "held");
	lb_rx_post(&c, 64, 64, 3);
	uint32_t n = lb_rx_stash_take(s, e);
	CHECK(n == 1 && e[0].frame == &f && e[0].at == 1.0 && s->n == 0, "taken back with its time");
	CHECK(lb_rx_data(&c, buf, e[0].frame) == LB_RX_TAKEN, "lands once posted");
	CHECK(lb_rx_complete(&c, &id) && id == 3 && memcmp(buf + 64, sent + 64, 64) == 0,
	      "complete, bytes as sent");
	for (uint32_t i = 0; i < LB_RX_STASH_MAX; i++)
		lb_rx_stash_hold(s, &f, 2.0);
	CHECK(lb_rx_stash_hold(s, &f, 2.0) == -1, "a full stash refuses");
	lb_rx_chan_clear(&c);
	free(s);
}

int main(void)
{
	fill_sent(1);
	test_in_order();
	test_early();
	return check_status("rx");
}
