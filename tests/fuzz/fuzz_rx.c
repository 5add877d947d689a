/* libFuzzer target for the DPDK receive side (transports/dpdk/rx.c): the
 * input is a script of one channel's life -- post a receive, a DATA frame
 * arrives (any seq, message, offset, length), a burst of one-byte frames
 * cuts the oldest receive in pieces, a burst of frames of a receive not
 * posted fills the stash, time passes (the stash lets stale frames go),
 * the stash is replayed -- and a model of the posted
 * receives checks after every step that
 *   - a frame writes only inside its receive, and only bytes none wrote
 *     before; nothing else in the buffer changes;
 *   - a receive completes only when every byte of it was written, in
 *     posting order, once; and one whose bytes all arrived does complete;
 *   - the stash holds what arrived within the age bound, oldest first. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/asan_interface.h>

#include "transports/dpdk/rx.h"

#define BUFLEN 4096
#define LEN_MAX 2048
#define PENDING_MAX 32
#define AGE 4.0

struct posted {
	uint64_t off, len;
	uint32_t id;
	uint8_t *written; /* [len]: byte i written */
	uint64_t nwritten; /* bytes of it written: all_written() in O(1) */
};

struct world {
	const uint8_t *in;
	size_t n, pos;
	uint8_t *buf, expect[BUFLEN];
	const uint8_t *pattern; /* BUFLEN + LEN_MAX bytes */
	struct lb_rx_chan c;
	struct lb_rx_stash stash;
	struct posted p[PENDING_MAX]; /* p[k]: message c.msg + k */
	uint32_t npending, next_id, next_done;
	double now;
};

/* Frames come from a pool, not malloc: a burst step makes up to 256 and
 * ASan's allocator was most of the time per input.  A frame given back is
 * poisoned, so a use after it was let go (the stash keeping a pointer it
 * returned) is still caught, as with free(). */
#define POOL (LB_RX_STASH_MAX + 8)
static struct lb_frame pool[POOL];
static struct lb_frame *pool_free[POOL];
static uint32_t pool_nfree;

static void pool_reset(void)
{
	for (uint32_t i = 0; i < POOL; i++) {
		pool_free[i] = &pool[POOL - 1 - i];
		ASAN_POISON_MEMORY_REGION(&pool[i], sizeof(pool[i]));
	}
	pool_nfree = POOL;
}

static struct lb_frame *frame_new(void)
{
	if (pool_nfree == 0)
		abort(); /* more frames alive than the stash can hold: a leak */
	struct lb_frame *f = pool_free[--pool_nfree];
	ASAN_UNPOISON_MEMORY_REGION(f, sizeof(*f));
	memset(f, 0, sizeof(*f));
	return f;
}

static void frame_free(struct lb_frame *f)
{
	ASAN_POISON_MEMORY_REGION(f, sizeof(*f));
	pool_free[pool_nfree++] = f;
}

static uint64_t take(struct world *w, int bytes)
{
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v = v << 8 | (w->pos < w->n ? w->in[w->pos++] : 0);
	return v;
}

static void post(struct world *w)
{
	uint64_t off = take(w, 2) % BUFLEN, len = take(w, 2) % (LEN_MAX + 1);
	len = len < BUFLEN - off ? len : BUFLEN - off;
	if (w->npending == PENDING_MAX || lb_rx_post(&w->c, off, len, w->next_id) != 0)
		return;
	w->p[w->npending++] = (struct posted){ off, len, w->next_id++, calloc(len + 1, 1), 0 };
}

/* A frame the input makes up: near the channel's state, mostly. */
static struct lb_frame *make_frame(struct world *w)
{
	struct lb_frame *f = frame_new();
	f->type = LB_FRAME_DATA;
	f->seq = w->c.rel.cum + (uint32_t)(int8_t)take(w, 1);
	f->msg = w->c.msg + (uint32_t)((int)(take(w, 1) % 40) - 4);
	uint32_t k = f->msg - w->c.msg;
	uint64_t base = k < w->npending ? w->p[k].off : 0;
	uint8_t how = (uint8_t)take(w, 1);
	f->seq += how & 2 ? LB_REL_WINDOW : 0;
	f->offset = how & 1 ? take(w, 8) : base + (uint64_t)(int16_t)take(w, 2);
	f->len = (uint32_t)take(w, 2) % (LEN_MAX + 1);
	if (!lb_frame_in_range(f->offset, f->len, 0, BUFLEN)) { /* the parser refuses those */
		f->offset %= BUFLEN;
		f->len = f->len < BUFLEN - f->offset ? f->len : (uint32_t)(BUFLEN - f->offset);
	}
	f->payload = w->pattern + (how >> 2) * 8;
	return f;
}

static void check_taken(struct world *w, const struct lb_frame *f)
{
	uint32_t k = f->msg - w->c.msg; /* before any completion it caused */
	if (k >= w->npending || f->len == 0 || f->offset < w->p[k].off ||
	    f->offset + f->len > w->p[k].off + w->p[k].len)
		abort(); /* taken outside its receive */
	/* memchr and memset, not a loop: the harness's own loops are
	 * instrumented too, and a compare traced per byte halved exec/s */
	uint8_t *wr = &w->p[k].written[f->offset - w->p[k].off];
	if (memchr(wr, 1, f->len))
		abort(); /* a byte written twice */
	memset(wr, 1, f->len);
	w->p[k].nwritten += f->len;
	memcpy(w->expect + f->offset, f->payload, f->len);
}

/* Every byte was written once (check_taken refuses a second write). */
static int all_written(const struct posted *p)
{
	return p->nwritten == p->len;
}

/* Completions: only of fully written receives, in order, each once. */
static void completions(struct world *w)
{
	uint32_t id;
	while (lb_rx_complete(&w->c, &id)) {
		if (w->npending == 0 || id != w->next_done++ || !all_written(&w->p[0]))
			abort();
		free(w->p[0].written);
		memmove(w->p, w->p + 1, --w->npending * sizeof(*w->p));
	}
	if (w->npending && all_written(&w->p[0]))
		abort(); /* every byte arrived, yet no completion */
}

/* Offers f, holding it when early; frees it otherwise. */
static void offer(struct world *w, struct lb_frame *f, double at)
{
	enum lb_rx_verdict v = lb_rx_data(&w->c, w->buf, f);
	if (v == LB_RX_TAKEN) {
		check_taken(w, f);
		completions(w);
	}
	if (v != LB_RX_EARLY || lb_rx_stash_hold(&w->stash, f, at) != 0)
		frame_free(f);
}

static void replay(struct world *w)
{
	struct lb_rx_early e[LB_RX_STASH_MAX];
	uint32_t n = lb_rx_stash_take(&w->stash, e);
	for (uint32_t i = 0; i < n; i++)
		offer(w, e[i].frame, e[i].at);
}

/* One-byte frames, every other byte of the oldest receive from a start
 * the input gives, seqs in order: as many pieces as the input likes. */
static void pieces(struct world *w)
{
	uint32_t n = (uint32_t)take(w, 1) + 1;
	uint64_t start = take(w, 1);
	for (uint32_t i = 0; i < n && w->npending; i++) {
		struct lb_frame *f = frame_new();
		*f = (struct lb_frame){ .type = LB_FRAME_DATA, .seq = w->c.rel.cum, .msg = w->c.msg,
					.offset = w->p[0].off + start + 2 * i, .len = 1,
					.payload = w->pattern + i };
		if (f->offset >= BUFLEN)
			f->offset = w->p[0].off;
		offer(w, f, w->now);
	}
}

/* Frames of the receive after the last posted, arrived a little before
 * or after now (the stash holds them oldest first either way). */
static void early(struct world *w)
{
	uint32_t n = (uint32_t)take(w, 1) + 1;
	for (uint32_t i = 0; i < n; i++) {
		struct lb_frame *f = frame_new();
		*f = (struct lb_frame){ .type = LB_FRAME_DATA, .seq = w->c.rel.cum + i % 200,
					.msg = w->c.msg + w->npending, .len = 1, .payload = w->pattern };
		offer(w, f, w->now + (double)(i % 3) - 1.0);
	}
}

static void pass_time(struct world *w)
{
	struct lb_rx_early e[LB_RX_STASH_MAX];
	w->now += (double)take(w, 1) * 0.05;
	uint32_t n = lb_rx_stash_expire(&w->stash, w->now, AGE, e);
	for (uint32_t i = 0; i < n; i++) {
		if (w->now - e[i].at <= AGE)
			abort(); /* let go too early */
		frame_free(e[i].frame);
	}
	for (uint32_t i = 0; i < w->stash.n; i++)
		if (w->now - w->stash.e[i].at > AGE || (i && w->stash.e[i].at < w->stash.e[i - 1].at))
			abort(); /* kept too long, or out of order */
}

static void finish(struct world *w)
{
	struct lb_rx_early e[LB_RX_STASH_MAX];
	for (uint32_t i = 0, n = lb_rx_stash_take(&w->stash, e); i < n; i++)
		frame_free(e[i].frame);
	for (uint32_t i = 0; i < w->npending; i++)
		free(w->p[i].written);
	lb_rx_chan_clear(&w->c);
	free(w->buf);
	if (pool_nfree != POOL)
		abort(); /* a frame neither held nor given back: a leak */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t pattern[BUFLEN + LEN_MAX];
	static struct world w;
	if (!pattern[0]) /* once: the bytes frames carry */
		for (size_t i = 0; i < sizeof(pattern); i++)
			pattern[i] = (uint8_t)(i * 131 + 7);
	memset(&w, 0, sizeof(w));
	w.in = data;
	w.n = size;
	pool_reset();
	w.buf = calloc(BUFLEN, 1); /* its own allocation: ASan sees a write past it */
	w.pattern = pattern;
	lb_rx_chan_init(&w.c);
	while (w.pos < w.n) {
		switch (take(&w, 1) % 6) {
		case 0: post(&w); completions(&w); break;
		case 1: offer(&w, make_frame(&w), w.now); break;
		case 2: pieces(&w); break;
		case 3: early(&w); break;
		case 4: pass_time(&w); break;
		default: replay(&w); break;
		}
		if (memcmp(w.buf, w.expect, BUFLEN) != 0)
			abort(); /* a byte changed that no taken frame wrote */
	}
	finish(&w);
	return 0;
}
