/* A collective's schedule: the one data structure every builder produces
 * and every executor (simulator, real transports) consumes.
 *
 * The message of `bytes` bytes is cut into `nblocks` blocks of (almost) equal
 * size, or at block_offset[] when a builder sets it (unequal work shares,
 * seed 004); a block is the unit of data tracking and pipelining (one slice).
 * Which collective it is follows from who holds each block at the start
 * (owner[], NULL = the root holds all) and who must end with it (want):
 *   broadcast  owner NULL,           LB_WANT_ALL
 *   gather     owner[b] = its rank,  LB_WANT_ROOT
 *   allgather  owner[b] = its rank,  LB_WANT_ALL
 * Each rank has an ordered list of ops.  An op is a SEND or RECV of a
 * contiguous block range to or from one peer on one lane, or a BARRIER of
 * a group of ranks (seed 004's supersteps).  Lane i of every rank is on
 * rail i, so a SEND on lane i is matched by a RECV on lane i.
 *
 * Ordering rules (what executors and the validator rely on):
 *  - the SENDs of one (rank, lane) are issued in list order, one at a time;
 *  - a SEND may start once all its blocks are present at its rank (received
 *    on any lane, or its own: owned from the start);
 *  - a BARRIER of group g sits on every lane of every member of g
 *    (lb_sched_barrier); no op after it on any lane of a member starts
 *    before every lane of every member has reached it, and every op before
 *    it on the lane (RECVs included) has completed;
 *  - messages of one channel (src, dst, lane) arrive in order, so the k-th
 *    SEND on a channel matches the k-th RECV on it;
 *  - receives of one lane from different peers may complete in any order;
 *  - the order of a rank's ops across lanes and between its SENDs and
 *    RECVs (program order: the order they were appended in) binds only the
 *    simulator's LogP mode, where a rank is one process and a receive
 *    blocks it; builders put a step's sends before its receives there
 *    (algos/vandegeijn.c).
 */
#ifndef LB_SCHEDULE_H
#define LB_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

/* LB_BARRIER: peer is the group (an index into the schedule's group
 * table), first_block and nblocks are 0. */
enum lb_op_kind { LB_SEND = 0, LB_RECV = 1, LB_BARRIER = 2 };

/* Who must end with which blocks.  With owner[] set,
 * LB_WANT_ALL is the allgather. */
enum lb_want {
	LB_WANT_ALL = 0,  /* every rank every block: broadcast, allgather */
	LB_WANT_ROOT = 1, /* only the root: gather */
};

/* A barrier group: its members (ascending ranks) and what the simulator charges
 * for it (HBSP's L, docs/papers.md#seed004): released at the latest member's
 * arrival + cost_seconds. */
struct lb_barrier_group {
	uint32_t *members;
	uint32_t count;
	double cost_seconds;
};

/* Op flags.  LB_OP_TRANSIT marks a routed transfer's pass through a relay (seed
 * 000's binomial-routed tree, docs/papers.md#seed000-trees): on a RECV, the
 * blocks arrive at a rank that only forwards them (it may hold them already) --
 * they become present, so it can send them on, but it is no delivery; on a
 * SEND, the rank forwards a copy it received in transit.  The validator wants
 * every rank's transit RECVs of a block and its transit SENDs of it to pair up
 * one to one.
 * LB_OP_CONT: the op is the next part of its lane's previous op's message
 * (same kind, same peer): seed 001's concatenated messages, whose blocks
 * are no one contiguous range.  Only the simulator's LogP mode reads it
 * (one send or receive overhead per message, not per op); the executors
 * and the other models run the op as any other. */
enum lb_op_flag { LB_OP_TRANSIT = 1, LB_OP_CONT = 2 };

struct lb_op {
	uint32_t peer;
	uint32_t first_block;
	uint32_t nblocks;
	uint8_t kind; /* enum lb_op_kind */
	uint8_t lane;
	uint8_t flags; /* enum lb_op_flag bits */
	/* Set by lb_sched_finalize: the lane of the rank's next op in the
	 * order the builder appended them (LB_LANE_END after its last).  It
	 * keeps the program order across lanes that grouping by lane loses,
	 * in what was padding: only the simulator's LogP mode reads it. */
	uint8_t next_lane;
};

/* next_lane and first_lane after a rank's last op (lanes are < 255). */
#define LB_LANE_END 255u

/* 16 bytes: the simulator and the executors stream millions of ops. */
_Static_assert(sizeof(struct lb_op) == 16, "struct lb_op must stay 16 bytes");

struct lb_platform; /* net/platform.h */

/* One rank's ops.  After lb_sched_finalize() they are grouped by lane
 * (stable, so per-lane order is the order the builder appended them in):
 * lane l's ops are ops[lane_start[l] .. lane_start[l + 1]).  The order
 * across lanes (program order) is a chain: first_lane, then each op's
 * next_lane, each lane's ops taken in turn. */
struct lb_rank_ops {
	struct lb_op *ops;
	uint32_t count;
	uint32_t cap;
	uint32_t *lane_start; /* lanes + 1 entries, set by finalize */
	uint8_t first_lane;   /* set by finalize: the lane of the first op */
};

struct lb_schedule {
	const char *algo; /* registry name, static storage */
	uint32_t ranks;
	uint32_t root;
	uint32_t lanes;
	uint32_t nblocks;
	uint64_t bytes;
	struct lb_rank_ops *rank;
	int finalized;
	/* The platform a heterogeneous algorithm built it for (not owned;
	 * NULL for the homogeneous ones): the validator then refuses an op
	 * between ranks with no link on its lane. */
	const struct lb_platform *platform;
	/* The collective (see the top): all owned by the schedule, NULL /
	 * LB_WANT_ALL / 0 for a broadcast. */
	uint32_t *owner;          /* [nblocks]: initial holder; NULL = root */
	enum lb_want want;
	uint64_t *block_offset;   /* [nblocks + 1], strictly increasing from 0
				   * to bytes; NULL = the even split */
	struct lb_barrier_group *group; /* [groups] */
	uint32_t groups;
	uint32_t adds_unpolled; /* ops added since the stop flag was looked at */
	/* Set before building (lb_algo_params.sends_only): lb_sched_add drops
	 * the RECVs, half the ops, which only the validator, the executors,
	 * barriers and the simulator's LogP mode read -- the port models run
	 * on the SENDs alone. */
	int sends_only;
};

/* Rank r holds block b from the start. */
static inline int lb_sched_owns(const struct lb_schedule *s, uint32_t r, uint32_t b)
{
	return (s->owner ? s->owner[b] : s->root) == r;
}

/* The collective's name: "bcast", "gather" (owners, the root wants all)
 * or "allgather" (owners, everyone wants all). */
static inline const char *lb_sched_collective(const struct lb_schedule *s)
{
	if (!s->owner)
		return "bcast";
	return s->want == LB_WANT_ROOT ? "gather" : "allgather";
}

/* Rank r must end with every block (want: all ranks, or the root). */
static inline int lb_sched_wants(const struct lb_schedule *s, uint32_t r)
{
	return s->want == LB_WANT_ALL || r == s->root;
}

/* Byte offset of block b (b == nblocks gives the message size): from
 * block_offset when set, else blocks are spread evenly: sizes differ by at
 * most one byte.  floor(b M / n) is
 * computed as b (M / n) + floor(b (M % n) / n): the same value, and
 * b (M % n) < 2^64, so no 128-bit division (the simulator's hot path). */
static inline uint64_t lb_block_offset(const struct lb_schedule *s, uint32_t b)
{
	if (s->block_offset)
		return s->block_offset[b];
	uint64_t whole = s->bytes / s->nblocks, rest = s->bytes % s->nblocks;
	return b * whole + (uint64_t)b * rest / s->nblocks;
}

static inline uint64_t lb_range_bytes(const struct lb_schedule *s,
				      uint32_t first, uint32_t n)
{
	return lb_block_offset(s, first + n) - lb_block_offset(s, first);
}

/* Ceiling division for slice arithmetic. */
static inline uint64_t lb_div_ceil(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

/* Products and sums for size estimates of absurd inputs (a 1-byte slice
 * of 1 TiB): they saturate at UINT64_MAX instead of wrapping to small. */
static inline uint64_t lb_mul_sat(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static inline uint64_t lb_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Sites (seed 003 section 3.2): ranks are split into `sites` contiguous
 * ranges of equal size, the first (ranks % sites) ranges one rank larger. */
static inline uint32_t lb_site_first(uint32_t ranks, uint32_t sites, uint32_t i)
{
	uint32_t base = ranks / sites, extra = ranks % sites;
	return i * base + (i < extra ? i : extra);
}

static inline uint32_t lb_site_of(uint32_t ranks, uint32_t sites, uint32_t r)
{
	uint32_t base = ranks / sites, extra = ranks % sites;
	uint32_t big = extra * (base + 1); /* ranks in the larger sites */
	return r < big ? r / (base + 1) : extra + (r - big) / base;
}

/* Returns NULL on allocation failure or bad sizes (ranks, lanes, nblocks 0). */
struct lb_schedule *lb_sched_new(const char *algo, uint32_t ranks,
				 uint32_t root, uint32_t lanes,
				 uint32_t nblocks, uint64_t bytes);
void lb_sched_free(struct lb_schedule *s);

/* Frees owner[], block_offset[] and the groups (back to a broadcast's
 * NULLs): for a holder of a copy of them that outlives the schedule. */
void lb_sched_free_collective(struct lb_schedule *s);

/* Doubles ro's room for ops.  Returns 0, or -1 on allocation failure. */
int lb_sched_grow(struct lb_rank_ops *ro);

/* A build of millions of ops takes seconds: every LB_SCHED_POLL_EVERY ops
 * lb_sched_add looks at the stop flag (lib/stop.h) and fails, as if out of
 * memory, once a stop was asked (lb_algo_build then says so). */
#define LB_SCHED_POLL_EVERY 65536
int lb_sched_poll_stop(struct lb_schedule *s);

/* Append one op to rank `r`.  Returns 0, or -1 on allocation failure or
 * a stop.  Inline: builders of 16,384 ranks call it tens of millions of
 * times. */
static inline int lb_sched_add(struct lb_schedule *s, uint32_t r, enum lb_op_kind kind,
			       uint32_t peer, uint32_t lane, uint32_t first, uint32_t n)
{
	struct lb_rank_ops *ro = &s->rank[r];
	if (kind == LB_RECV && s->sends_only)
		return 0;
	if (ro->count == ro->cap && lb_sched_grow(ro) != 0)
		return -1;
	if (++s->adds_unpolled == LB_SCHED_POLL_EVERY && lb_sched_poll_stop(s))
		return -1;
	ro->ops[ro->count++] = (struct lb_op){
		.peer = peer,
		.first_block = first,
		.nblocks = n,
		.kind = (uint8_t)kind,
		.lane = (uint8_t)lane,
	};
	return 0;
}

/* Append a SEND at src and the matching RECV at dst.  Returns 0 or -1. */
static inline int lb_sched_transfer(struct lb_schedule *s, uint32_t src, uint32_t dst,
				    uint32_t lane, uint32_t first, uint32_t n)
{
	if (lb_sched_add(s, src, LB_SEND, dst, lane, first, n) != 0)
		return -1;
	return lb_sched_add(s, dst, LB_RECV, src, lane, first, n);
}

/* owner[] for s, every block at the root until the builder says otherwise
 * (kept by s).  NULL when out of memory. */
uint32_t *lb_sched_set_owners(struct lb_schedule *s);

/* block_offset[] for s, the even split until the builder overwrites it
 * (kept by s).  NULL when out of memory. */
uint64_t *lb_sched_set_offsets(struct lb_schedule *s);

/* Adds a barrier group of n ranks (any order, copied, kept ascending)
 * costing cost_seconds in the simulator.  Returns its id, or -1 (no
 * memory, or n == 0). */
int64_t lb_sched_add_group(struct lb_schedule *s, const uint32_t *members,
			   uint32_t n, double cost_seconds);

/* Appends a BARRIER of group g to every lane of every member.  0 or -1. */
int lb_sched_barrier(struct lb_schedule *s, uint32_t g);

/* Group each rank's ops by lane; required before executing or validating.
 * Records the order the ops were appended in (first_lane, next_lane), so
 * call it once: a second call would record the grouped order. */
int lb_sched_finalize(struct lb_schedule *s);

/* Ops of (rank, lane) after finalize. */
static inline const struct lb_op *lb_lane_ops(const struct lb_schedule *s,
					      uint32_t r, uint32_t lane,
					      uint32_t *count)
{
	const struct lb_rank_ops *ro = &s->rank[r];
	*count = ro->lane_start[lane + 1] - ro->lane_start[lane];
	return ro->ops + ro->lane_start[lane];
}

size_t lb_sched_op_count(const struct lb_schedule *s);

/* Bytes a finalized schedule of `ops` ops takes at least (ops and the
 * per-rank tables), before anything is allocated. */
uint64_t lb_sched_min_bytes(uint32_t ranks, uint32_t lanes, uint64_t ops);

/* Bytes lb_sched_validate allocates at least for such a schedule. */
uint64_t lb_sched_validate_min_bytes(uint32_t ranks, uint64_t blocks, uint64_t ops);

/* The distinct peers rank r exchanges data with on `lane` (a barrier's:
 * its group's first member, the leader, with each other member),
 * ascending, into
 * peers[] (room for ranks entries).  Returns the count, or -1 (no memory). */
int lb_sched_lane_peers(const struct lb_schedule *s, uint32_t r, uint32_t lane,
			uint32_t *peers);

/* Validate: a rank that wants a block it does not own receives it exactly
 * once, an owner never receives its own block, no rank receives one twice
 * (for a broadcast: every non-root rank every block once, the root none);
 * transit RECVs are no delivery: they do not count, and each pairs with
 * one transit SEND of the same block at that rank; every SEND has its RECV
 * on the same channel, in order; a SEND only uses blocks its rank holds by
 * then (a transit RECV makes them held); a BARRIER's rank is a member of
 * its group, every lane of every member has it, and members agree on the
 * order of the barriers they share; no deadlock; with s->platform, every
 * op is between ranks linked on its lane; owner[] and block_offset[] are
 * in range.  Returns 0 when
 * valid, otherwise -1 with a one-line reason in err. */
int lb_sched_validate(const struct lb_schedule *s, char *err, size_t errlen);

/* With s->platform: the first op (lane and peer in range) between ranks the
 * platform does not link on its lane, or a platform of another size, as
 * lb_sched_validate words it: -1 with the reason in err; else 0.  Lets a
 * caller tell the user's platform (bad input) from a broken schedule. */
int lb_sched_check_links(const struct lb_schedule *s, char *err, size_t errlen);

#endif
