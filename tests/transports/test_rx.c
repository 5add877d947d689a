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

/* A copy of a frame that the seq filter takes for new (a duplicate from
 * past the window, a replay under another seq) writes nothing and counts
 * nothing: counting its bytes again completed a receive of two frames
 * with only the first one arrived. */
static void test_duplicate_past_window(void)
{
	struct lb_rx_chan c;
	uint8_t buf[BUFLEN] = { 0 };
	uint32_t id;
	lb_rx_chan_init(&c);
	lb_rx_post(&c, 0, 200, 1);
	CHECK(offer(&c, buf, 0, 0, 0, 100) == LB_RX_TAKEN, "first half");
	CHECK(offer(&c, buf, 1, 0, 0, 100) == LB_RX_OVERLAP, "its copy under a new seq: overlap");
	CHECK(!lb_rx_complete(&c, &id), "half of the bytes: not complete");
	CHECK(c.rel.cum == 1, "the copy's seq is not recorded (cum %u)", c.rel.cum);
	CHECK(offer(&c, buf, 1, 0, 100, 100) == LB_RX_TAKEN, "the real seq 1 still lands");
	CHECK(lb_rx_complete(&c, &id) && id == 1 && memcmp(buf, sent, 200) == 0,
	      "complete with every byte as sent");
	lb_rx_chan_clear(&c);
}

/* Forged frames: outside their receive, empty, or straddling bytes that
 * arrived; none writes, none counts. */
static void test_forged(void)
{
	struct lb_rx_chan c;
	uint8_t buf[BUFLEN] = { 0 };
	uint32_t id;
	lb_rx_chan_init(&c);
	lb_rx_post(&c, 1000, 300, 1);
	CHECK(offer(&c, buf, 0, 0, 2000, 100) == LB_RX_RANGE, "offset past the receive");
	CHECK(offer(&c, buf, 0, 0, 900, 100) == LB_RX_RANGE, "offset before the receive");
	CHECK(offer(&c, buf, 0, 0, 1250, 100) == LB_RX_RANGE, "running past its end");
	CHECK(offer(&c, buf, 0, 0, UINT64_MAX - 10, 100) == LB_RX_RANGE, "offset wrapping around");
	CHECK(offer(&c, buf, 0, 0, 1300, 0) == LB_RX_RANGE, "empty, at its end");
	CHECK(offer(&c, buf, 0, 0, 1100, 0) == LB_RX_RANGE, "empty, inside");
	CHECK(c.rel.cum == 0, "no forged seq recorded");
	CHECK(offer(&c, buf, 0, 0, 1000, 150) == LB_RX_TAKEN, "first half");
	CHECK(offer(&c, buf, 1, 0, 1100, 200) == LB_RX_OVERLAP, "straddling the first half");
	CHECK(offer(&c, buf, 1, 0, 1149, 2) == LB_RX_OVERLAP, "one byte over");
	CHECK(offer(&c, buf, 1, 0, 1000, 300) == LB_RX_OVERLAP, "covering it");
	CHECK(!lb_rx_complete(&c, &id), "not complete");
	for (int i = 0; i < 1000; i++)
		CHECK(buf[i] == 0 && (i >= 300 || buf[1300 + i] == 0), "byte %d outside written", i);
	CHECK(offer(&c, buf, 1, 0, 1150, 150) == LB_RX_TAKEN, "second half");
	CHECK(lb_rx_complete(&c, &id) && memcmp(buf + 1000, sent + 1000, 300) == 0, "complete");
	lb_rx_chan_clear(&c);
}

/* Frames of varied sizes in any order, with copies under new seqs mixed
 * in: complete exactly when the last missing byte lands, bytes as sent. */
static void test_any_order(unsigned seed)
{
	enum { OFF = 100, LEN = 3000, MAXF = 80 }; /* seqs stay in the window */
	struct lb_rx_chan c;
	uint8_t buf[BUFLEN] = { 0 };
	struct lb_frame f[MAXF];
	uint32_t n = 0, id, pos = 0;
	srand(seed);
	for (uint32_t o = 0; o < LEN; n++) { /* cut as a sender would, seq by seq */
		uint32_t len = 40 + (uint32_t)rand() % 161;
		len = len < LEN - o ? len : LEN - o;
		f[n] = data(n, 0, OFF + o, len);
		o += len;
	}
	for (uint32_t i = n - 1; i > 0; i--) { /* delivered in any order */
		uint32_t j = (uint32_t)rand() % (i + 1);
		struct lb_frame t = f[i];
		f[i] = f[j];
		f[j] = t;
	}
	lb_rx_chan_init(&c);
	lb_rx_post(&c, OFF, LEN, 9);
	for (uint32_t k = 0; k < n; k++) {
		if (k > 0 && rand() % 2) {
			struct lb_frame copy = f[(uint32_t)rand() % k]; /* of one that arrived */
			copy.seq = n + pos++;
			CHECK(lb_rx_data(&c, buf, &copy) == LB_RX_OVERLAP, "seed %u: copy overlaps", seed);
		}
		CHECK(lb_rx_data(&c, buf, &f[k]) == LB_RX_TAKEN, "seed %u: frame %u taken", seed, k);
		int done = lb_rx_complete(&c, &id);
		CHECK(done == (k == n - 1), "seed %u: complete after %u of %u frames", seed, k + 1, n);
	}
	CHECK(memcmp(buf + OFF, sent + OFF, LEN) == 0, "seed %u: bytes as sent", seed);
	CHECK(buf[OFF - 1] == 0 && buf[OFF + LEN] == 0, "seed %u: nothing around", seed);
	lb_rx_chan_clear(&c);
}

/* A receive cut in more pieces than an honest sender makes refuses
 * more, and takes frames that join pieces. */
static void test_span_cap(void)
{
	struct lb_rx_chan c;
	static uint8_t buf[BUFLEN];
	uint32_t id, seq = 0;
	lb_rx_chan_init(&c);
	lb_rx_post(&c, 0, 2 * LB_RX_SPANS_MAX + 2, 1);
	for (uint32_t i = 0; i < LB_RX_SPANS_MAX; i++) /* every other byte */
		CHECK(offer(&c, buf, seq++, 0, 2 * i, 1) == LB_RX_TAKEN, "piece %u", i);
	CHECK(offer(&c, buf, seq, 0, 2 * LB_RX_SPANS_MAX, 1) == LB_RX_SPANS, "one piece too many");
	for (uint32_t i = 0; i < LB_RX_SPANS_MAX; i++)
		CHECK(offer(&c, buf, seq++, 0, 2 * i + 1, 1) == LB_RX_TAKEN, "join %u", i);
	CHECK(!lb_rx_complete(&c, &id), "two bytes missing");
	CHECK(offer(&c, buf, seq++, 0, 2 * LB_RX_SPANS_MAX, 2) == LB_RX_TAKEN, "the last two");
	CHECK(lb_rx_complete(&c, &id) && id == 1, "complete");
	lb_rx_chan_clear(&c);
}

/* Frames held for a receive that is never posted go after the bound,
 * oldest first; younger ones stay, and stay in order. */
static void test_stash_age(void)
{
	struct lb_rx_stash *s = calloc(1, sizeof(*s));
	struct lb_rx_early e[LB_RX_STASH_MAX];
	int frame[4];
	lb_rx_stash_hold(s, &frame[0], 1.0);
	lb_rx_stash_hold(s, &frame[1], 2.0);
	lb_rx_stash_hold(s, &frame[2], 3.0);
	CHECK(lb_rx_stash_expire(s, 4.0, 4.0, e) == 0 && s->n == 3, "none older than 4 s at 4 s");
	uint32_t n = lb_rx_stash_expire(s, 6.5, 4.0, e);
	CHECK(n == 2 && e[0].frame == &frame[0] && e[1].frame == &frame[1], "the two of 1 s and 2 s go");
	CHECK(s->n == 1 && s->e[0].frame == &frame[2] && s->e[0].at == 3.0, "the one of 3 s stays");
	lb_rx_stash_hold(s, &frame[3], 2.5); /* replayed out of order: as young as the newest */
	CHECK(s->e[1].at == 3.0, "held oldest first (at %g)", s->e[1].at);
	CHECK(lb_rx_stash_expire(s, 7.5, 4.0, e) == 2 && s->n == 0, "both go at 7.5 s");
	for (uint32_t i = 0; i < LB_RX_STASH_MAX; i++)
		lb_rx_stash_hold(s, &frame[0], 10.0 + i);
	CHECK(lb_rx_stash_hold(s, &frame[1], 600.0) == -1, "full");
	CHECK(lb_rx_stash_expire(s, 600.0, 4.0, e) == LB_RX_STASH_MAX, "a full stash of stale ones empties");
	CHECK(lb_rx_stash_hold(s, &frame[1], 600.0) == 0, "and holds again");
	free(s);
}

int main(void)
{
	fill_sent(1);
	test_in_order();
	test_early();
	test_duplicate_past_window();
	test_forged();
	test_span_cap();
	test_stash_age();
	for (unsigned seed = 1; seed <= 50; seed++)
		test_any_order(seed);
	return check_status("rx");
}
