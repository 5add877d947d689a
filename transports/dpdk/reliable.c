/* Sender window and receiver filter of one channel; see reliable.h. */
#include "reliable.h"

#include <string.h>

#define RING (2 * LB_REL_WINDOW)

/* a - b as a signed distance modulo 2^32. */
static int32_t dist(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

static struct lb_rel_slot *slot(struct lb_rel_tx *t, uint32_t seq)
{
	return &t->slot[seq % LB_REL_WINDOW];
}

void lb_rel_tx_init(struct lb_rel_tx *t, uint32_t window, double min_rto, double max_rto)
{
	memset(t, 0, sizeof(*t));
	t->window = window == 0 || window > LB_REL_WINDOW ? LB_REL_WINDOW : window;
	t->min_rto = min_rto;
	t->max_rto = max_rto > min_rto ? max_rto : min_rto;
	t->rto = min_rto;
}

void lb_rel_rx_init(struct lb_rel_rx *r)
{
	memset(r, 0, sizeof(*r));
}

uint32_t lb_rel_tx_inflight(const struct lb_rel_tx *t)
{
	return t->next - t->base;
}

int lb_rel_tx_can_send(const struct lb_rel_tx *t)
{
	return lb_rel_tx_inflight(t) < t->window;
}

uint32_t lb_rel_tx_push(struct lb_rel_tx *t, const struct lb_rel_frame *f)
{
	uint32_t seq = t->next++;
	*slot(t, seq) = (struct lb_rel_slot){ .f = *f, .sent_at = -1 };
	return seq;
}

static int in_flight(const struct lb_rel_tx *t, uint32_t seq)
{
	return dist(seq, t->base) >= 0 && dist(seq, t->next) < 0;
}

const struct lb_rel_frame *lb_rel_tx_frame(const struct lb_rel_tx *t, uint32_t seq)
{
	const struct lb_rel_slot *s = &t->slot[seq % LB_REL_WINDOW];
	return in_flight(t, seq) && !s->acked ? &s->f : NULL;
}

int lb_rel_tx_sent(struct lb_rel_tx *t, uint32_t seq, double now)
{
	struct lb_rel_slot *s = slot(t, seq);
	s->sent_at = now;
	return s->nsent++ > 0;
}

/* Round-trip sample from a frame sent once (Karn: never a retransmitted
 * one); RTO = the larger of 3 x smoothed RTT and smoothed RTT + 4 x its
 * mean deviation (RFC 6298): queueing behind a shaper or a descheduled
 * peer should not look like loss. */
static void rtt_sample(struct lb_rel_tx *t, const struct lb_rel_slot *s, double now)
{
	if (s->nsent != 1 || s->sent_at < 0)
		return;
	double r = now - s->sent_at;
	if (t->srtt > 0) {
		double dev = t->srtt > r ? t->srtt - r : r - t->srtt;
		t->rttvar = 0.75 * t->rttvar + 0.25 * dev;
		t->srtt = 0.875 * t->srtt + 0.125 * r;
	} else {
		t->srtt = r;
		t->rttvar = r / 2;
	}
	t->rto = t->srtt + 4 * t->rttvar > 3 * t->srtt ? t->srtt + 4 * t->rttvar : 3 * t->srtt;
	t->rto = t->rto < t->min_rto ? t->min_rto : t->rto > t->max_rto ? t->max_rto : t->rto;
}

static uint32_t ack_one(struct lb_rel_tx *t, uint32_t seq, double now)
{
	struct lb_rel_slot *s = slot(t, seq);
	if (!in_flight(t, seq) || s->acked)
		return 0;
	s->acked = 1;
	rtt_sample(t, s, now);
	return 1;
}

uint32_t lb_rel_tx_ack(struct lb_rel_tx *t, uint32_t cum, const uint8_t *bits, double now)
{
	uint32_t n = 0;
	if (dist(cum, t->next) > 0)
		return 0; /* acks what we never sent: not ours to believe */
	for (uint32_t s = t->base; dist(s, cum) < 0; s++)
		n += ack_one(t, s, now);
	for (uint32_t i = 0; i < LB_REL_WINDOW; i++) {
		uint32_t seq = cum + 1 + i;
		if (!(bits[i / 8] >> (i % 8) & 1) || !in_flight(t, seq))
			continue;
		n += ack_one(t, seq, now);
		if (dist(seq + 1, t->high_sack) > 0)
			t->high_sack = seq + 1;
	}
	while (dist(t->next, t->base) > 0 && slot(t, t->base)->acked)
		t->base++;
	return n;
}

/* Only the oldest unacked frame is retransmitted by the timer (a frame
 * after it goes again once it is the oldest, or a hole): a peer that was
 * merely descheduled answers that one with an ack for all, where resending
 * every late frame cost a burst of duplicates per stall (1.2% of the
 * frames, 8 x 2 af_packet broadcasts on 2 busy cores). */
int lb_rel_tx_due(struct lb_rel_tx *t, double now, uint32_t *seqs, int max)
{
	int n = 0, late = 0;
	for (uint32_t s = t->base; n < max && dist(s, t->next) < 0; s++) {
		const struct lb_rel_slot *sl = slot(t, s);
		if (sl->acked)
			continue;
		int hole = dist(s, t->high_sack) < 0;
		double age = now - sl->sent_at;
		int timed_out = sl->sent_at >= 0 && age >= t->rto && s == t->base;
		if (sl->sent_at < 0 || timed_out || (hole && age >= t->rto / 4)) {
			late |= timed_out;
			seqs[n++] = s;
		}
	}
	if (late) {
		t->rto *= 2;
		t->rto = t->rto > t->max_rto ? t->max_rto : t->rto;
	}
	return n;
}

enum lb_rel_verdict lb_rel_rx_check(const struct lb_rel_rx *r, uint32_t seq)
{
	int32_t d = dist(seq, r->cum);
	if (d < 0)
		return LB_REL_DUP;
	if (d >= LB_REL_WINDOW)
		return LB_REL_AHEAD;
	return r->got[seq % RING] ? LB_REL_DUP : LB_REL_NEW;
}

void lb_rel_rx_accept(struct lb_rel_rx *r, uint32_t seq)
{
	r->got[seq % RING] = 1;
	while (r->got[r->cum % RING]) {
		r->got[r->cum % RING] = 0;
		r->cum++;
	}
}

uint32_t lb_rel_rx_ack(const struct lb_rel_rx *r, uint8_t *bits)
{
	memset(bits, 0, LB_REL_WINDOW / 8);
	for (uint32_t i = 0; i < LB_REL_WINDOW; i++)
		if (r->got[(r->cum + 1 + i) % RING])
			bits[i / 8] |= (uint8_t)(1u << (i % 8));
	return r->cum;
}
