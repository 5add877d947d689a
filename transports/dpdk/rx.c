/* The receive side of a channel and a lane's stash; see rx.h. */
#include "rx.h"

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

void lb_rx_chan_clear(struct lb_rx_chan *c)
{
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
	struct lb_rx_xfer *x = idx < 0 ? NULL : xfer_at(c, (uint32_t)idx);
	*v = idx < 0 ? LB_RX_RANGE : LB_RX_EARLY; /* a new frame of a finished message */
	if (x && !lb_frame_in_range(f->offset, f->len, x->off, x->len)) {
		*v = LB_RX_RANGE;
		return NULL;
	}
	return x;
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
	memcpy(buf + f->offset, f->payload, f->len);
	x->have += f->len;
	lb_rel_rx_accept(&c->rel, f->seq);
	return LB_RX_TAKEN;
}

int lb_rx_complete(struct lb_rx_chan *c, uint32_t *id)
{
	struct lb_rx_xfer *x = xfer_at(c, 0);
	if (!x || x->have != x->len)
		return 0;
	*id = x->id;
	lb_ring_pop(&c->recvq);
	c->msg++;
	return 1;
}

int lb_rx_stash_hold(struct lb_rx_stash *s, void *frame, double at)
{
	if (s->n == LB_RX_STASH_MAX)
		return -1;
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
