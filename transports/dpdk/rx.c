/* The receive side of a channel and a lane's stash; see rx.h. */
#include "rx.h"

#include <stdlib.h>
#include <string.h>

static struct lb_rx_xfer *xfer_at(const struct lb_rx_chan *c, uint32_t i)
{
	return lb_ring_at(&c->recvq, i, sizeof(struct lb_rx_xfer));
}

void lb_rx_chan_init(struct lb_rx_chan *c)
{
	memset(c, 0, sizeof(*c));
	lb_rel_rx_init(&c->rel);
}

static struct lb_rx_span *spans(struct lb_rx_xfer *x)
{
	return x->cap > LB_RX_SPANS_INLINE ? x->heap : x->inl;
}

static void free_spans(struct lb_rx_xfer *x)
{
	if (x->cap > LB_RX_SPANS_INLINE)
		free(x->heap);
}

void lb_rx_chan_clear(struct lb_rx_chan *c)
{
	for (uint32_t i = 0; i < c->recvq.count; i++)
		free_spans(xfer_at(c, i));
	lb_ring_free(&c->recvq);
}

int lb_rx_post(struct lb_rx_chan *c, uint64_t off, uint64_t len, uint32_t id)
{
	struct lb_rx_xfer x = { .off = off, .len = len, .id = id };
	return lb_ring_push(&c->recvq, &x, sizeof(x));
}

uint32_t lb_rx_pending(const struct lb_rx_chan *c)
{
	return c->recvq.count;
}

/* The receive frame f belongs to, or NULL with the verdict in *v. */
static struct lb_rx_xfer *xfer_of(const struct lb_rx_chan *c, const struct lb_frame *f,
				  enum lb_rx_verdict *v)
{
	int32_t idx = (int32_t)(f->msg - c->msg);
	*v = LB_RX_RANGE;
	if (idx < 0)
		return NULL; /* a new frame of a finished message */
	struct lb_rx_xfer *x = xfer_at(c, (uint32_t)idx);
	if (!x)
		*v = LB_RX_EARLY;
	if (!x || f->len == 0 || !lb_frame_in_range(f->offset, f->len, x->off, x->len))
		return NULL;
	return x;
}

/* Room for one more span, or the verdict why not.  Grows by 4: the few
 * receives that lose frames need a handful, a forged storm the cap. */
static enum lb_rx_verdict reserve_span(struct lb_rx_xfer *x)
{
	uint32_t cap = x->cap > LB_RX_SPANS_INLINE ? x->cap : LB_RX_SPANS_INLINE;
	if (x->nspans < cap)
		return LB_RX_TAKEN;
	if (cap >= LB_RX_SPANS_MAX)
		return LB_RX_SPANS;
	uint32_t ncap = cap * 4 < LB_RX_SPANS_MAX ? cap * 4 : LB_RX_SPANS_MAX;
	struct lb_rx_span *h = realloc(x->cap > LB_RX_SPANS_INLINE ? x->heap : NULL,
				       ncap * sizeof(*h));
	if (!h)
		return LB_RX_NOMEM;
	if (x->cap <= LB_RX_SPANS_INLINE)
		memcpy(h, x->inl, x->nspans * sizeof(*h));
	x->heap = h;
	x->cap = ncap;
	return LB_RX_TAKEN;
}

/* How many of the sorted spans s[0..n) end at or before lo. */
static uint32_t spans_before(const struct lb_rx_span *s, uint32_t n, uint64_t lo)
{
	if (n == 0 || s[n - 1].hi <= lo)
		return n; /* in order: after the last */
	uint32_t a = 0, b = n;
	while (a < b) {
		uint32_t m = a + (b - a) / 2;
		if (s[m].hi <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* Records [lo, hi) of x as arrived, unless a byte of it had. */
static enum lb_rx_verdict add_span(struct lb_rx_xfer *x, uint64_t lo, uint64_t hi)
{
	struct lb_rx_span *s = spans(x);
	uint32_t n = x->nspans, i = spans_before(s, n, lo);
	if (i < n && s[i].lo < hi)
		return LB_RX_OVERLAP;
	int left = i > 0 && s[i - 1].hi == lo, right = i < n && s[i].lo == hi;
	if (left && right) { /* fills the hole between two */
		s[i - 1].hi = s[i].hi;
		memmove(s + i, s + i + 1, (n - i - 1) * sizeof(*s));
		x->nspans--;
	} else if (left) {
		s[i - 1].hi = hi;
	} else if (right) {
		s[i].lo = lo;
	} else {
		enum lb_rx_verdict v = reserve_span(x);
		if (v != LB_RX_TAKEN)
			return v;
		s = spans(x);
		memmove(s + i + 1, s + i, (n - i) * sizeof(*s));
		s[i] = (struct lb_rx_span){ lo, hi };
		x->nspans++;
	}
	x->have += hi - lo;
	return LB_RX_TAKEN;
}

enum lb_rx_verdict lb_rx_data(struct lb_rx_chan *c, uint8_t *buf, const struct lb_frame *f)
{
	switch (lb_rel_rx_check(&c->rel, f->seq)) {
	case LB_REL_DUP:
		return LB_RX_DUP;
	case LB_REL_AHEAD:
		return LB_RX_AHEAD;
	default:
		break;
	}
	enum lb_rx_verdict v;
	struct lb_rx_xfer *x = xfer_of(c, f, &v);
	if (!x)
		return v;
	v = add_span(x, f->offset - x->off, f->offset - x->off + f->len);
	if (v != LB_RX_TAKEN)
		return v;
	memcpy(buf + f->offset, f->payload, f->len);
	lb_rel_rx_accept(&c->rel, f->seq);
	return LB_RX_TAKEN;
}

int lb_rx_complete(struct lb_rx_chan *c, uint32_t *id)
{
	struct lb_rx_xfer *x = xfer_at(c, 0);
	if (!x || x->have != x->len)
		return 0;
	*id = x->id;
	free_spans(x);
	lb_ring_pop(&c->recvq);
	c->msg++;
	return 1;
}

int lb_rx_stash_hold(struct lb_rx_stash *s, void *frame, double at)
{
	if (s->n == LB_RX_STASH_MAX)
		return -1;
	if (s->n && at < s->e[s->n - 1].at)
		at = s->e[s->n - 1].at; /* oldest first, so expire looks at the front only */
	s->e[s->n++] = (struct lb_rx_early){ frame, at };
	return 0;
}

uint32_t lb_rx_stash_take(struct lb_rx_stash *s, struct lb_rx_early *out)
{
	uint32_t n = s->n;
	memcpy(out, s->e, n * sizeof(*out));
	s->n = 0;
	return n;
}

uint32_t lb_rx_stash_expire(struct lb_rx_stash *s, double now, double max_age,
			    struct lb_rx_early *out)
{
	uint32_t n = 0;
	while (n < s->n && now - s->e[n].at > max_age)
		n++;
	memcpy(out, s->e, n * sizeof(*out));
	memmove(s->e, s->e + n, (s->n - n) * sizeof(*s->e));
	s->n -= n;
	return n;
}
