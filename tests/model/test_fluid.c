/* model/fluid.c, which recomputes only the component of a changed flow,
 * against a reference written here that recomputes every flow in progress
 * by a plain progressive filling at every change: random flows over a few
 * resources (so that components merge and split), started between ends,
 * with ties (equal flows through equal resources) among them.  Each next
 * end and each set of flows taken at it must agree. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "model/fluid.h"

#define RES 10
#define MAXF 64

struct ref_flow {
	double left, rate, cap;
	uint32_t res[LB_FLUID_MAX_RES], nres, tag;
};

struct ref {
	struct ref_flow f[MAXF];
	uint32_t n;
	double now;
};

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint32_t draw(uint32_t n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* Max-min fair rates of every flow: all rise together; a flow freezes at
 * its cap or when one of its resources is full. */
static void ref_fill(struct ref *r, const double *capacity)
{
	uint8_t frozen[MAXF] = { 0 };
	for (uint32_t i = 0; i < r->n; i++)
		r->f[i].rate = 0;
	for (uint32_t left = r->n; left;) {
		double used[RES] = { 0 }, rise = INFINITY;
		uint32_t users[RES] = { 0 };
		for (uint32_t i = 0; i < r->n; i++)
			for (uint32_t k = 0; k < r->f[i].nres; k++)
				used[r->f[i].res[k]] += r->f[i].rate, users[r->f[i].res[k]] += !frozen[i];
		for (uint32_t i = 0; i < r->n; i++)
			if (!frozen[i])
				rise = fmin(rise, r->f[i].cap - r->f[i].rate);
		for (uint32_t q = 0; q < RES; q++)
			if (users[q])
				rise = fmin(rise, (capacity[q] - used[q]) / users[q]);
		left = 0;
		for (uint32_t i = 0; i < r->n; i++) {
			if (frozen[i])
				continue;
			r->f[i].rate += rise;
			int full = isinf(rise) || (!isinf(r->f[i].cap) &&
						    r->f[i].cap - r->f[i].rate <= 1e-9 * r->f[i].cap);
			for (uint32_t k = 0; k < r->f[i].nres; k++) {
				uint32_t q = r->f[i].res[k];
				full |= capacity[q] - used[q] - users[q] * rise <= 1e-9 * capacity[q];
			}
			frozen[i] = (uint8_t)full, left += !full;
		}
	}
}

static double ref_next_end(const struct ref *r)
{
	double end = INFINITY;
	for (uint32_t i = 0; i < r->n; i++)
		end = fmin(end, r->now + r->f[i].left / r->f[i].rate);
	return end;
}

/* Moves to `at`; the flows ending there (within 1e-9 of it) are taken,
 * their tags marked in taken[]. */
static void ref_advance(struct ref *r, double at, uint8_t *taken)
{
	for (uint32_t i = 0; i < r->n; i++)
		r->f[i].left -= r->f[i].rate * (at - r->now);
	r->now = at;
	for (uint32_t i = 0; i < r->n;) {
		if (r->f[i].left > 1e-9 * r->f[i].rate * (1 + at)) {
			i++;
			continue;
		}
		taken[r->f[i].tag] = 1;
		r->f[i] = r->f[--r->n];
	}
}

/* A flow of random size (or the size of the last: a tie) through 1-3
 * distinct random resources (or a group of equal ones), some capped. */
static struct ref_flow random_flow(uint32_t tag)
{
	static double last = 1e6;
	struct ref_flow fl = { .left = draw(2) ? last : 1e5 + draw(1000000), .cap = INFINITY,
			       .nres = 1 + draw(LB_FLUID_MAX_RES), .tag = tag };
	last = fl.left;
	for (uint32_t k = 0; k < fl.nres; k++) {
		do
			fl.res[k] = draw(RES);
		while ((k > 0 && fl.res[k] == fl.res[0]) || (k > 1 && fl.res[k] == fl.res[1]));
	}
	if (!draw(4))
		fl.cap = 2e5 + draw(300000);
	return fl;
}

/* Takes the flows lb_fluid ends at `end` and checks them against the
 * reference's; returns how many. */
static uint32_t take_both(struct lb_fluid *f, struct ref *r, double end, uint32_t tags)
{
	uint8_t want[4096] = { 0 }, got[4096] = { 0 };
	uint32_t n = 0, tag;
	ref_advance(r, end, want);
	while ((tag = lb_fluid_take_ended(f, end)) != LB_FLUID_NONE)
		got[tag] = 1, n++;
	for (uint32_t t = 0; t < tags; t++)
		CHECK(got[t] == want[t], "flow %u: ended %d, reference %d at %.12g", t, got[t],
		      want[t], end);
	return n;
}

static void random_run(void)
{
	double capacity[RES];
	for (uint32_t q = 0; q < RES; q++)
		capacity[q] = q < 4 ? 1e6 : 5e5 + draw(1000000); /* 0-3 equal: ties */
	struct lb_fluid f;
	CHECK(lb_fluid_init(&f, capacity, RES) == 0, "init");
	static struct ref r;
	uint32_t tags = 0, ended = 0;
	while (tags < 4000 || r.n) {
		double end = lb_fluid_next_end(&f), want = ref_next_end(&r);
		CHECK(end == want || check_close(end, want, 1e-9), "next end %.12g, reference %.12g",
		      end, want);
		if (tags < 4000 && r.n < MAXF && (r.n < 3 || draw(2))) {
			double at = r.n ? r.now + (want - r.now) * draw(4) / 4 : r.now + 1;
			uint8_t none[4096] = { 0 };
			ref_advance(&r, at, none); /* nothing ends before `want` */
			struct ref_flow fl = random_flow(tags++);
			CHECK(lb_fluid_add(&f, at, fl.left, fl.cap, 1, fl.res, fl.nres, fl.tag) == 0, "add");
			r.f[r.n++] = fl;
		} else {
			ended += take_both(&f, &r, end, tags);
		}
		ref_fill(&r, capacity);
	}
	CHECK(ended == tags, "%u flows ended of %u", ended, tags);
	lb_fluid_free(&f);
}

/* Weighted by hand: flows a (weight 1) and b (weight 3) of n bytes
 * through one resource of C: C / 4 and 3 C / 4, b done at 4 n / 3 C, a
 * then alone at C with 2 n / 3 left: done at 2 n / C.  With b capped at
 * C / 2 it freezes there and a takes the other half. */
static void weighted(void)
{
	const double C = 1e6, n = 3e6, capacity[1] = { C };
	const uint32_t res[1] = { 0 };
	struct lb_fluid f;
	CHECK(lb_fluid_init(&f, capacity, 1) == 0, "init");
	CHECK(lb_fluid_add(&f, 0, n, INFINITY, 1, res, 1, 0) == 0, "add a");
	CHECK(lb_fluid_add(&f, 0, n, INFINITY, 3, res, 1, 1) == 0, "add b");
	double end = lb_fluid_next_end(&f);
	CHECK(check_close(end, 4 * n / (3 * C), 1e-12), "b ends at %.12g", end);
	CHECK(lb_fluid_take_ended(&f, end) == 1, "b first");
	end = lb_fluid_next_end(&f);
	CHECK(check_close(end, 2 * n / C, 1e-12), "a ends at %.12g", end);
	CHECK(lb_fluid_take_ended(&f, end) == 0, "then a");
	CHECK(lb_fluid_add(&f, end, n, INFINITY, 1, res, 1, 0) == 0, "add a");
	CHECK(lb_fluid_add(&f, end, n, C / 2, 3, res, 1, 1) == 0, "add b capped");
	double both = lb_fluid_next_end(&f);
	CHECK(check_close(both, end + 2 * n / C, 1e-12), "both at C / 2: %.12g", both);
	lb_fluid_free(&f);
}

/* A resource of subnormal capacity (a platform file cannot give one: its
 * rates are bounded where they enter, issue 28): 1e-12 of it is 0, so the
 * filling's tolerance never froze flows left a rounding error short of it,
 * and the next rise, 0, changed nothing: the loop never ended.  Each round
 * freezes a flow in exact arithmetic, so the filling stops after as many
 * rounds as flows.  Bounded by alarm(): a hang fails, it does not wait. */
static void subnormal_capacity(void)
{
	const double capacity[1] = { 1e-320 };
	const uint32_t res[1] = { 0 };
	struct lb_fluid f;
	alarm(10);
	CHECK(lb_fluid_init(&f, capacity, 1) == 0, "init");
	for (uint32_t i = 0; i < 3; i++)
		CHECK(lb_fluid_add(&f, 0, 1e6, INFINITY, 1 + i, res, 1, i) == 0, "add %u", i);
	double end = lb_fluid_next_end(&f);
	CHECK(end > 0, "the first end %g", end);
	lb_fluid_free(&f);
	alarm(0);
}

int main(void)
{
	subnormal_capacity();
	weighted();
	random_run();
	return check_status("fluid");
}
