/* Max-min fair sharing of resources by flows (fluid.h), recomputed per
 * connected component of the flow-resource graph. */
#include "fluid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A flow has ended when what is left of it would pass within a
 * picosecond per second of simulated time: ends computed as since + left /
 * rate leave a rounding residue of that order, never a real remainder. */
#define END_SLACK 1e-12

int lb_fluid_init(struct lb_fluid *f, const double *capacity, uint32_t resources)
{
	size_t n = resources ? resources : 1;
	*f = (struct lb_fluid){ .capacity = capacity, .spare = malloc(n * sizeof(double)),
				.users = malloc(n * sizeof(double)),
				.head = malloc(n * sizeof(uint32_t)),
				.res_mark = calloc(n, sizeof(uint32_t)),
				.touched = malloc(n * sizeof(uint32_t)),
				.resources = resources, .free_id = LB_FLUID_NONE, .epoch = 1 };
	if (f->spare && f->users && f->head && f->res_mark && f->touched &&
	    lb_heap_init(&f->ends, 0, LB_HEAP_TRACK, NULL) == 0) { /* keys: grow's */
		memset(f->head, 0xff, n * sizeof(uint32_t)); /* LB_FLUID_NONE: no flows */
		return 0;
	}
	lb_fluid_free(f);
	return -1;
}

void lb_fluid_free(struct lb_fluid *f)
{
	free(f->spare);
	free(f->users);
	free(f->head);
	free(f->res_mark);
	free(f->touched);
	free(f->flow);
	free(f->order);
	free(f->end);
	lb_heap_free(&f->ends);
	free(f->comp);
	free(f->ended);
	*f = (struct lb_fluid){ 0 };
}

/* Twice the room for flows, the new ids chained as free (ids x
 * LB_FLUID_MAX_RES + k name the nodes of the resource lists). */
static int grow(struct lb_fluid *f)
{
	size_t n = f->flow_cap ? 2 * f->flow_cap : 16;
	if (n > LB_FLUID_NONE / LB_FLUID_MAX_RES)
		return -1;
	struct lb_fluid_flow *fl = realloc(f->flow, n * sizeof(*fl));
	if (!fl)
		return -1;
	f->flow = fl;
	double *end = realloc(f->end, n * sizeof(*end));
	if (!end)
		return -1;
	f->end = end, f->ends.key = end; /* the heap's keys, moved */
	if (lb_heap_grow(&f->ends, (uint32_t)n))
		return -1;
	uint32_t **arr[] = { &f->order, &f->comp };
	for (size_t a = 0; a < sizeof(arr) / sizeof(arr[0]); a++) {
		uint32_t *p = realloc(*arr[a], n * sizeof(uint32_t));
		if (!p)
			return -1;
		*arr[a] = p;
	}
	uint64_t *e = realloc(f->ended, n * sizeof(*e));
	if (!e)
		return -1;
	f->ended = e;
	for (size_t id = n; id-- > f->flow_cap;)
		f->flow[id] = (struct lb_fluid_flow){ .order = f->free_id }, f->free_id = (uint32_t)id;
	f->flow_cap = n;
	return 0;
}

/* Resource r is part of the pending recomputation. */
static void touch_resource(struct lb_fluid *f, uint32_t r)
{
	if (f->res_mark[r] != f->epoch)
		f->res_mark[r] = f->epoch, f->touched[f->ntouched++] = r;
}

/* Flow id is part of the pending recomputation. */
static void touch_flow(struct lb_fluid *f, uint32_t id)
{
	if (f->flow[id].mark != f->epoch)
		f->flow[id].mark = f->epoch, f->comp[f->ncomp++] = id;
}

/* Flow id put at the head of each of its resources' lists. */
static void link_flow(struct lb_fluid *f, uint32_t id)
{
	struct lb_fluid_flow *fl = &f->flow[id];
	for (uint32_t k = 0; k < fl->nres; k++) {
		uint32_t node = id * LB_FLUID_MAX_RES + k, old = f->head[fl->res[k]];
		fl->prev[k] = LB_FLUID_NONE, fl->next[k] = old;
		if (old != LB_FLUID_NONE)
			f->flow[old / LB_FLUID_MAX_RES].prev[old % LB_FLUID_MAX_RES] = node;
		f->head[fl->res[k]] = node;
	}
}

static void unlink_flow(struct lb_fluid *f, uint32_t id)
{
	struct lb_fluid_flow *fl = &f->flow[id];
	for (uint32_t k = 0; k < fl->nres; k++) {
		uint32_t p = fl->prev[k], n = fl->next[k];
		if (p == LB_FLUID_NONE)
			f->head[fl->res[k]] = n;
		else
			f->flow[p / LB_FLUID_MAX_RES].next[p % LB_FLUID_MAX_RES] = n;
		if (n != LB_FLUID_NONE)
			f->flow[n / LB_FLUID_MAX_RES].prev[n % LB_FLUID_MAX_RES] = p;
	}
}

/* The component of the changed flows: every flow through a touched
 * resource and every resource of a touched flow, until none is new. */
static void collect(struct lb_fluid *f)
{
	uint32_t ci = 0, ri = 0;
	while (ci < f->ncomp || ri < f->ntouched) {
		for (; ri < f->ntouched; ri++)
			for (uint32_t node = f->head[f->touched[ri]]; node != LB_FLUID_NONE;
			     node = f->flow[node / LB_FLUID_MAX_RES].next[node % LB_FLUID_MAX_RES])
				touch_flow(f, node / LB_FLUID_MAX_RES);
		for (; ci < f->ncomp; ci++) {
			const struct lb_fluid_flow *fl = &f->flow[f->comp[ci]];
			for (uint32_t k = 0; k < fl->nres; k++)
				touch_resource(f, fl->res[k]);
		}
	}
}

/* One round of the filling: the rise of the level every unfrozen flow can
 * still take together, each flow rising its weight times it (INFINITY:
 * none binds). */
static double common_rise(const struct lb_fluid *f)
{
	double rise = INFINITY;
	for (uint32_t c = 0; c < f->ncomp; c++) {
		const struct lb_fluid_flow *fl = &f->flow[f->comp[c]];
		if (fl->frozen)
			continue;
		rise = fmin(rise, (fl->cap - fl->rate) / fl->weight);
		for (uint32_t k = 0; k < fl->nres; k++)
			rise = fmin(rise, f->spare[fl->res[k]] / f->users[fl->res[k]]);
	}
	return rise;
}

/* A flow stops rising at its own cap or at a full resource. */
static int saturated(const struct lb_fluid *f, const struct lb_fluid_flow *fl)
{
	if (!isinf(fl->cap) && fl->cap - fl->rate <= 1e-12 * fl->cap)
		return 1;
	for (uint32_t k = 0; k < fl->nres; k++)
		if (f->spare[fl->res[k]] <= 1e-12 * f->capacity[fl->res[k]])
			return 1;
	return 0;
}

/* Raises the unfrozen flows by `rise` and freezes the saturated ones;
 * returns how many are left unfrozen. */
static uint32_t raise_and_freeze(struct lb_fluid *f, double rise)
{
	uint32_t unfrozen = 0;
	for (uint32_t c = 0; c < f->ncomp; c++) {
		struct lb_fluid_flow *fl = &f->flow[f->comp[c]];
		if (fl->frozen)
			continue;
		fl->rate += fl->weight * rise;
		for (uint32_t k = 0; k < fl->nres; k++)
			f->spare[fl->res[k]] -= fl->weight * rise;
	}
	for (uint32_t c = 0; c < f->ncomp; c++) {
		struct lb_fluid_flow *fl = &f->flow[f->comp[c]];
		if (fl->frozen)
			continue;
		if (!saturated(f, fl)) {
			unfrozen++;
			continue;
		}
		fl->frozen = 1;
		for (uint32_t k = 0; k < fl->nres; k++)
			f->users[fl->res[k]] -= fl->weight;
	}
	return unfrozen;
}

/* Progressive filling of the component from zero rates: weighted max-min
 * fair (the component's resources are the touched ones).  With weights 1
 * the arithmetic is that of plain max-min, to the bit. */
static void fill(struct lb_fluid *f)
{
	for (uint32_t t = 0; t < f->ntouched; t++)
		f->spare[f->touched[t]] = f->capacity[f->touched[t]], f->users[f->touched[t]] = 0;
	for (uint32_t c = 0; c < f->ncomp; c++) {
		struct lb_fluid_flow *fl = &f->flow[f->comp[c]];
		fl->rate = 0, fl->frozen = 0;
		for (uint32_t k = 0; k < fl->nres; k++)
			f->users[fl->res[k]] += fl->weight;
	}
	uint32_t unfrozen = f->ncomp;
	/* Each round freezes a flow (the one, or a user of the resource, that
	 * set the rise), in exact arithmetic: after ncomp rounds only flows a
	 * rounding error short of their limit are left, which a tolerance of
	 * 1e-12 of a subnormal capacity (0) would never freeze -- stop.  Twice
	 * that, so a round that rounding kept from freezing costs nothing. */
	for (uint64_t round = 0; unfrozen && round < 2 * (uint64_t)f->ncomp + 2; round++) {
		double rise = common_rise(f);
		if (isinf(rise)) { /* nothing limits the rest: they pass at once */
			for (uint32_t c = 0; c < f->ncomp; c++)
				if (!f->flow[f->comp[c]].frozen)
					f->flow[f->comp[c]].rate = INFINITY;
			break;
		}
		unfrozen = raise_and_freeze(f, rise);
	}
}

/* The flow's bytes left brought to `now` at its rate so far. */
static void bring_forward(struct lb_fluid_flow *fl, double now)
{
	if (now > fl->since)
		fl->left = isinf(fl->rate) ? 0 : fl->left - fl->rate * (now - fl->since);
	fl->since = now;
}

/* The next recomputation's mark; marks cleared when the count wraps. */
static void next_epoch(struct lb_fluid *f)
{
	if (++f->epoch)
		return;
	memset(f->res_mark, 0, f->resources * sizeof(uint32_t));
	for (size_t id = 0; id < f->flow_cap; id++)
		f->flow[id].mark = 0;
	f->epoch = 1;
}

/* New rates and ends at `now` for the component of the changes since the
 * last recomputation; the other flows' are unchanged. */
static void recompute(struct lb_fluid *f)
{
	collect(f);
	for (uint32_t c = 0; c < f->ncomp; c++)
		bring_forward(&f->flow[f->comp[c]], f->now);
	fill(f);
	for (uint32_t c = 0; c < f->ncomp; c++) {
		struct lb_fluid_flow *fl = &f->flow[f->comp[c]];
		f->end[f->comp[c]] = isinf(fl->rate) || fl->left <= 0 ? f->now
									: f->now + fl->left / fl->rate;
		lb_heap_update(&f->ends, f->comp[c]);
	}
	f->ncomp = f->ntouched = 0;
	next_epoch(f);
	f->dirty = 0, f->batch = 0;
}

/* Time moves to `at`: the changes made at the last one recomputed first. */
static void settle(struct lb_fluid *f, double at)
{
	if (f->dirty && at > f->now)
		recompute(f);
	if (at > f->now)
		f->now = at, f->batch = 0;
}

int lb_fluid_add(struct lb_fluid *f, double at, double bytes, double cap, double weight,
		 const uint32_t *res, uint32_t nres, uint32_t tag)
{
	if (f->free_id == LB_FLUID_NONE && grow(f))
		return -1;
	settle(f, at);
	uint32_t id = f->free_id;
	struct lb_fluid_flow *fl = &f->flow[id];
	f->free_id = fl->order;
	*fl = (struct lb_fluid_flow){ .left = bytes, .since = f->now, .cap = cap, .weight = weight,
				      .nres = nres, .tag = tag, .order = (uint32_t)f->nflows };
	memcpy(fl->res, res, nres * sizeof(*res));
	link_flow(f, id);
	f->order[f->nflows++] = id;
	f->end[id] = INFINITY;
	lb_heap_push(&f->ends, id); /* last: its end is INFINITY until recomputed */
	touch_flow(f, id);
	f->dirty = 1, f->batch = 0;
	return 0;
}

double lb_fluid_next_end(struct lb_fluid *f)
{
	if (f->dirty)
		recompute(f);
	return f->nflows ? fmax(f->end[f->ends.id[0]], f->now) : INFINITY;
}

/* Whether the flow has passed its bytes by `now`, to within the slack. */
static int has_ended(const struct lb_fluid_flow *fl, double now)
{
	double left = isinf(fl->rate) ? 0 : fl->left - fl->rate * (now - fl->since);
	return left <= fl->rate * END_SLACK * (1 + now);
}

/* The flows of the heap's subtree at pos that end by `limit` and have
 * ended, appended to f->ended as (order, id). */
static void find_ended(struct lb_fluid *f, uint32_t pos, double limit)
{
	if (pos >= f->ends.n)
		return;
	const struct lb_fluid_flow *fl = &f->flow[f->ends.id[pos]];
	if (f->end[f->ends.id[pos]] > limit)
		return;
	if (has_ended(fl, f->now))
		f->ended[f->nended++] = (uint64_t)fl->order << 32 | f->ends.id[pos];
	find_ended(f, 2 * pos + 1, limit);
	find_ended(f, 2 * pos + 2, limit);
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The flows ended at `now`, first in order first: found once per batch of
 * takes at one time, as none starts to have ended in between (the rates
 * stay until time moves on). */
static void batch_ended(struct lb_fluid *f)
{
	f->nended = f->ended_next = 0;
	/* has_ended holds only for ends within the slack of now, rounding aside */
	find_ended(f, 0, f->now + 2 * END_SLACK * (1 + f->now));
	qsort(f->ended, f->nended, sizeof(*f->ended), by_key);
	f->batch = 1;
}

/* Flow id ends: its resources are touched, its id freed. */
static void remove_flow(struct lb_fluid *f, uint32_t id)
{
	struct lb_fluid_flow *fl = &f->flow[id];
	for (uint32_t k = 0; k < fl->nres; k++)
		touch_resource(f, fl->res[k]);
	for (uint32_t c = 0; fl->mark == f->epoch && c < f->ncomp; c++)
		if (f->comp[c] == id) /* started since the last recomputation */
			f->comp[c] = f->comp[--f->ncomp];
	fl->mark = 0;
	unlink_flow(f, id);
	uint32_t moved = f->order[--f->nflows];
	f->order[fl->order] = moved, f->flow[moved].order = fl->order;
	lb_heap_remove(&f->ends, id);
	fl->order = f->free_id, f->free_id = id;
	f->dirty = 1;
}

/* Removing a flow moves the last in order into its place: when that one
 * has ended too (the batch's last), it is now the first. */
uint32_t lb_fluid_take_ended(struct lb_fluid *f, double at)
{
	settle(f, at);
	if (!f->batch)
		batch_ended(f);
	if (f->ended_next == f->nended)
		return LB_FLUID_NONE;
	uint32_t id = (uint32_t)f->ended[f->ended_next++], last = f->order[f->nflows - 1];
	uint32_t tag = f->flow[id].tag;
	remove_flow(f, id);
	if (last != id && f->ended_next < f->nended && (uint32_t)f->ended[f->nended - 1] == last)
		f->ended[--f->ended_next] = f->ended[--f->nended];
	return tag;
}
