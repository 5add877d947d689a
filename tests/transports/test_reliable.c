/* The reliable-delivery window (transports/reliable.c): a simulated lossy,
 * duplicating, reordering channel must deliver every frame exactly once,
 * and the sender's window, acks, and retransmission timer must behave. */
#include <stdlib.h>

#include "tests/check.h"
#include "transports/dpdk/reliable.h"

static void test_in_order(void)
{
	struct lb_rel_tx t;
	struct lb_rel_rx r;
	uint8_t bits[LB_REL_WINDOW / 8];
	lb_rel_tx_init(&t, 4, 0.01, 1);
	lb_rel_rx_init(&r);
	for (int i = 0; i < 4; i++)
		lb_rel_tx_push(&t, &(struct lb_rel_frame){ .offset = (uint64_t)i * 100, .len = 100 });
	CHECK(!lb_rel_tx_can_send(&t), "window of 4 is full after 4 frames");
	uint32_t due[8];
	CHECK(lb_rel_tx_due(&t, 0, due, 8) == 4, "4 frames never sent are due");
	for (int i = 0; i < 4; i++)
		CHECK(lb_rel_tx_sent(&t, (uint32_t)i, 0) == 0, "first send is no retransmission");
	CHECK(lb_rel_tx_due(&t, 0.001, due, 8) == 0, "nothing due before the RTO");
	for (uint32_t s = 0; s < 4; s++) {
		CHECK(lb_rel_rx_check(&r, s) == LB_REL_NEW, "seq %u new", s);
		lb_rel_rx_accept(&r, s);
	}
	CHECK(lb_rel_rx_check(&r, 2) == LB_REL_DUP, "seq 2 again is a duplicate");
	CHECK(lb_rel_rx_check(&r, 4 + LB_REL_WINDOW) == LB_REL_AHEAD, "beyond the window");
	uint32_t cum = lb_rel_rx_ack(&r, bits);
	CHECK(cum == 4, "cumulative ack 4, got %u", cum);
	CHECK(lb_rel_tx_ack(&t, cum, bits, 0.002) == 4, "4 newly acked");
	CHECK(lb_rel_tx_inflight(&t) == 0 && lb_rel_tx_can_send(&t), "window empty");
	CHECK(lb_rel_tx_ack(&t, cum, bits, 0.003) == 0, "a repeated ack acks nothing");
	CHECK(lb_rel_tx_ack(&t, 99, bits, 0.003) == 0, "an ack beyond what was sent is ignored");
}

static void test_selective_and_timeout(void)
{
	struct lb_rel_tx t;
	struct lb_rel_rx r;
	uint8_t bits[LB_REL_WINDOW / 8];
	uint32_t due[8];
	lb_rel_tx_init(&t, 8, 0.01, 0.1);
	lb_rel_rx_init(&r);
	for (uint32_t i = 0; i < 3; i++) {
		lb_rel_tx_push(&t, &(struct lb_rel_frame){ .len = 1 });
		lb_rel_tx_sent(&t, i, 0);
	}
	lb_rel_rx_accept(&r, 0);
	lb_rel_rx_accept(&r, 2); /* 1 lost */
	uint32_t cum = lb_rel_rx_ack(&r, bits);
	CHECK(cum == 1 && bits[0] == 0x1, "cum 1, bit 0 for seq 2: got %u %#x", cum, bits[0]);
	CHECK(lb_rel_tx_ack(&t, cum, bits, 0.001) == 2, "seqs 0 and 2 acked");
	CHECK(lb_rel_tx_inflight(&t) == 2, "base stays at the hole");
	CHECK(lb_rel_tx_frame(&t, 2) == NULL && lb_rel_tx_frame(&t, 1) != NULL, "only 1 unacked");
	int n = lb_rel_tx_due(&t, 0.004, due, 8);
	CHECK(n == 1 && due[0] == 1, "hole retransmitted after RTO/4 (n=%d)", n);
	CHECK(lb_rel_tx_sent(&t, 1, 0.004) == 1, "counted as a retransmission");
	double rto = t.rto;
	CHECK(lb_rel_tx_due(&t, 0.004 + rto, due, 8) == 1, "late again after an RTO");
	CHECK(t.rto == 2 * rto || t.rto == t.max_rto, "RTO backed off");
	lb_rel_rx_accept(&r, 1);
	cum = lb_rel_rx_ack(&r, bits);
	CHECK(cum == 3 && bits[0] == 0, "cum 3 after the hole filled");
	lb_rel_tx_ack(&t, cum, bits, 0.05);
	CHECK(lb_rel_tx_inflight(&t) == 0, "all acked");
}

/* The timer resends only the oldest unacked frame: a peer that was slow,
 * not lossy, acks everything when it answers. */
static void test_timeout_oldest_only(void)
{
	struct lb_rel_tx t;
	struct lb_rel_rx r;
	uint8_t bits[LB_REL_WINDOW / 8];
	uint32_t due[8];
	lb_rel_tx_init(&t, 8, 0.01, 0.1);
	lb_rel_rx_init(&r);
	for (uint32_t i = 0; i < 4; i++) {
		lb_rel_tx_push(&t, &(struct lb_rel_frame){ .len = 1 });
		lb_rel_tx_sent(&t, i, 0);
		lb_rel_rx_accept(&r, i); /* arrived; the acks are late */
	}
	int n = lb_rel_tx_due(&t, 0.02, due, 8);
	CHECK(n == 1 && due[0] == 0, "only the oldest of 4 late frames is due (n=%d)", n);
	lb_rel_tx_sent(&t, 0, 0.02);
	CHECK(lb_rel_tx_due(&t, 0.021, due, 8) == 0, "the others wait for its ack");
	uint32_t cum = lb_rel_rx_ack(&r, bits);
	CHECK(lb_rel_tx_ack(&t, cum, bits, 0.022) == 4 && lb_rel_tx_inflight(&t) == 0,
	      "one ack for all: nothing else resent");
	lb_rel_tx_push(&t, &(struct lb_rel_frame){ .len = 1 });
	lb_rel_tx_push(&t, &(struct lb_rel_frame){ .len = 1 });
	lb_rel_tx_sent(&t, 4, 0.03);
	lb_rel_tx_sent(&t, 5, 0.03);
	lb_rel_rx_accept(&r, 5); /* 4 lost */
	cum = lb_rel_rx_ack(&r, bits);
	lb_rel_tx_ack(&t, cum, bits, 0.031);
	n = lb_rel_tx_due(&t, 0.031 + t.rto, due, 8);
	CHECK(n == 1 && due[0] == 4, "a lost oldest frame is resent (n=%d)", n);
}

/* Random channel: drop, duplicate, reorder frames and acks; every seq must
 * be delivered exactly once and the sender must end with nothing in flight. */
static void test_lossy_channel(unsigned seed, uint32_t total)
{
	struct lb_rel_tx t;
	struct lb_rel_rx r;
	uint8_t bits[LB_REL_WINDOW / 8];
	uint32_t due[64], pushed = 0, steps = 0;
	uint8_t *delivered = calloc(total, 1);
	uint32_t held[16], nheld = 0;
	srand(seed);
	lb_rel_tx_init(&t, 64, 0.01, 0.08);
	lb_rel_rx_init(&r);
	double now = 0;
	while ((pushed < total || lb_rel_tx_inflight(&t)) && steps++ < 200000) {
		now += 0.001;
		for (; pushed < total && lb_rel_tx_can_send(&t); pushed++)
			CHECK(lb_rel_tx_push(&t, &(struct lb_rel_frame){ .msg = pushed }) == pushed,
			      "seq %u in order", pushed);
		int n = lb_rel_tx_due(&t, now, due, 64);
		for (int i = 0; i < n; i++) {
			lb_rel_tx_sent(&t, due[i], now);
			int copies = rand() % 100 < 5 ? 0 : rand() % 100 < 5 ? 2 : 1;
			for (int c = 0; c < copies; c++) {
				uint32_t s = due[i];
				if (rand() % 100 < 5 && nheld < 16) {
					held[nheld++] = s; /* reordered: arrives later */
					continue;
				}
				if (lb_rel_rx_check(&r, s) == LB_REL_NEW) {
					CHECK(!delivered[s], "seq %u delivered twice", s);
					delivered[s] = 1;
					lb_rel_rx_accept(&r, s);
				}
			}
		}
		if (rand() % 3 == 0)
			while (nheld) {
				uint32_t s = held[--nheld];
				if (lb_rel_rx_check(&r, s) == LB_REL_NEW) {
					CHECK(!delivered[s], "held seq %u delivered twice", s);
					delivered[s] = 1;
					lb_rel_rx_accept(&r, s);
				}
			}
		uint32_t cum = lb_rel_rx_ack(&r, bits);
		if (rand() % 100 >= 10) /* 10% of acks lost */
			lb_rel_tx_ack(&t, cum, bits, now);
	}
	uint32_t missing = 0;
	for (uint32_t i = 0; i < total; i++)
		missing += !delivered[i];
	CHECK(missing == 0, "seed %u: %u of %u frames never delivered", seed, missing, total);
	CHECK(lb_rel_tx_inflight(&t) == 0, "seed %u: %u frames still in flight", seed,
	      lb_rel_tx_inflight(&t));
	free(delivered);
}

static void test_wrap(void)
{
	struct lb_rel_tx t;
	struct lb_rel_rx r;
	uint8_t bits[LB_REL_WINDOW / 8];
	lb_rel_tx_init(&t, 16, 0.01, 1);
	lb_rel_rx_init(&r);
	t.base = t.next = r.cum = UINT32_MAX - 3; /* sequence numbers wrap */
	for (int i = 0; i < 8; i++) {
		uint32_t s = lb_rel_tx_push(&t, &(struct lb_rel_frame){ .len = 1 });
		lb_rel_tx_sent(&t, s, 0);
		CHECK(lb_rel_rx_check(&r, s) == LB_REL_NEW, "seq %u new across the wrap", s);
		lb_rel_rx_accept(&r, s);
	}
	uint32_t cum = lb_rel_rx_ack(&r, bits);
	CHECK(cum == 4, "cum wrapped to 4, got %u", cum);
	CHECK(lb_rel_tx_ack(&t, cum, bits, 0.001) == 8 && lb_rel_tx_inflight(&t) == 0,
	      "all acked across the wrap");
}

/* Steady round trips set the RTO to 3 x RTT within [min, max]; a noisy
 * one raises it by its deviation. */
static void test_rto(void)
{
	struct lb_rel_tx t;
	uint8_t bits[LB_REL_WINDOW / 8] = { 0 };
	lb_rel_tx_init(&t, 64, 0.001, 0.5);
	double now = 0;
	for (uint32_t s = 0; s < 50; s++, now += 0.01) {
		lb_rel_tx_push(&t, &(struct lb_rel_frame){ .len = 1 });
		lb_rel_tx_sent(&t, s, now);
		lb_rel_tx_ack(&t, s + 1, bits, now + 0.004);
	}
	CHECK(check_close(t.srtt, 0.004, 1e-6), "srtt 4 ms, got %g", t.srtt);
	CHECK(check_close(t.rto, 0.012, 1e-3), "steady: rto 3 x 4 ms, got %g", t.rto);
	for (uint32_t s = 50; s < 100; s++, now += 0.01) {
		lb_rel_tx_push(&t, &(struct lb_rel_frame){ .len = 1 });
		lb_rel_tx_sent(&t, s, now);
		lb_rel_tx_ack(&t, s + 1, bits, now + (s % 2 ? 0.001 : 0.02));
	}
	CHECK(t.rto > 3 * t.srtt, "noisy: rto %g above 3 x srtt %g", t.rto, t.srtt);
	lb_rel_tx_init(&t, 64, 0.01, 0.5);
	lb_rel_tx_push(&t, &(struct lb_rel_frame){ .len = 1 });
	lb_rel_tx_sent(&t, 0, 0);
	lb_rel_tx_ack(&t, 1, bits, 0.0001);
	CHECK(t.rto == 0.01, "rto floored at the minimum, got %g", t.rto);
}

/* A round trip of 0.4 s (the frames wait in a deep queue, nothing is
 * lost): with the transport's bounds the timer waits for the ack instead
 * of resending a frame that is on its way. */
static void test_deep_queue(void)
{
	struct lb_rel_tx t;
	uint8_t bits[LB_REL_WINDOW / 8] = { 0 };
	uint32_t due[8];
	double now = 0;
	lb_rel_tx_init(&t, 64, LB_REL_MIN_RTO, LB_REL_MAX_RTO);
	for (uint32_t s = 0; s < 20; s++, now += 0.5) {
		lb_rel_tx_push(&t, &(struct lb_rel_frame){ .len = 1 });
		lb_rel_tx_sent(&t, s, now);
		CHECK(lb_rel_tx_due(&t, now + 0.45, due, 8) == 0 || s < 2,
		      "frame %u: due 0.45 s after sending with a 0.4 s round trip (rto %g)", s, t.rto);
		lb_rel_tx_ack(&t, s + 1, bits, now + 0.4);
	}
	CHECK(t.rto >= 1.2 - 1e-9, "rto 3 x the 0.4 s round trip, got %g", t.rto);
}

int main(void)
{
	test_deep_queue();
	test_rto();
	test_timeout_oldest_only();
	test_in_order();
	test_selective_and_timeout();
	test_wrap();
	for (unsigned seed = 1; seed <= 20; seed++)
		test_lossy_channel(seed, 5000);
	return check_status("reliable");
}
