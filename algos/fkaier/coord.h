/* Seed 002 (Fkaier, Cerin, Steffenel, Jemni; docs/papers.md#seed002): the order
 * in which cluster coordinators send a whole message to each other.  Pure
 * functions: per coordinator pair the gap g_ij (the sender's busy time for the
 * message) and the latency L_ij, per cluster the time T_k of its local
 * broadcast; out comes the ordered list of (sender, receiver) sends and the
 * model's completion time.
 *
 * Every heuristic is the loop of docs/papers.md#seed002-heuristics: A =
 * coordinators holding the message (at first the source), B = the others; while
 * B is not empty, choose (i in A, j in B) and apply the clock of
 * docs/papers.md#seed002-clock:
 *     arrive(j) = RT_i + g_ij + L_ij,  RT_i += g_ij,  RT_j = arrive(j)
 * (1-port full duplex: a coordinator sends one message at a time, for
 * g_ij).  Only the choice differs:
 *   flat           the source sends to every coordinator in id order
 *   ecef           min RT_i + g_ij + L_ij over the pairs
 *   ecef-la        min RT_i + g_ij + L_ij + F_j, F_j = min_{k in B\j} g_jk + L_jk
 *   ecef-lat-min   the same with F_j = min_{k in B\j} g_jk + L_jk + T_k
 *   ecef-lat-max   the same with F_j = max_{k in B\j} g_jk + L_jk + T_k
 *                  (the printed formula: F turns max, the selection stays a min)
 *   bottomup       j* = argmax_j min_i (RT_i + g_ij + L_ij) + T_j, through
 *                  i* = argmin_i RT_i + g_ij* + L_ij* (our reading: with RT_i)
 *   bottomup-nort  the formula as printed, without RT_i (both choices)
 *   mostcrit       per step E1(j) = min_i RT_i + g_ij + L_ij, E2 = E1 + F_j
 *                  (ecef-la's F), E3 = E1 + T_j; one step of ecef, ecef-la or
 *                  bottomup for the set of the largest dispersion (mean
 *                  absolute deviation; standard deviation as a variant)
 * F_j is evaluated over B \ {j} at the current step, 0 when that is empty.
 * Ties (not in the paper; docs/papers.md#seed002-heuristics; the
 * worked example, docs/papers.md#seed002-example, relies on them): the
 * smaller value, then the smaller i, then the smaller j; bottomup: among
 * equal maxima the smaller j, among equal senders the smaller i; mostcrit:
 * among equal dispersions factor 3, then 2, then 1.
 *
 * Completion time (docs/papers.md#seed002-clock), by clock:
 *   V1 overlap     max_j arrive(j) + T_j: a cluster's local broadcast runs
 *                  while its coordinator goes on sending between clusters
 *   V2 local first a coordinator broadcasts in its cluster before it sends
 *                  on: RT_j = arrive(j) + T_j (the source: RT = T_source)
 *   V3 local last  it broadcasts after its last send: max_j RT_j + T_j */
#ifndef LB_COORD_H
#define LB_COORD_H

#include <stdint.h>

enum lb_coord_heuristic {
	LB_COORD_FLAT,
	LB_COORD_ECEF,
	LB_COORD_ECEF_LA,
	LB_COORD_ECEF_LAT_MIN,
	LB_COORD_ECEF_LAT_MAX,
	LB_COORD_BOTTOMUP,
	LB_COORD_BOTTOMUP_NORT,
	LB_COORD_MOSTCRIT,
	LB_COORD_HEURISTICS /* count */
};

enum lb_coord_clock { LB_COORD_V1 = 0, LB_COORD_V2, LB_COORD_V3 };

enum lb_coord_dispersion { LB_COORD_MEAN_DEVIATION = 0, LB_COORD_STDDEV };

struct lb_coord_in {
	uint32_t n;        /* coordinators (clusters), >= 1 */
	uint32_t source;   /* < n */
	const double *g;   /* [n * n], row = sender: seconds the sender is busy */
	const double *lat; /* [n * n], row = sender: seconds in flight */
	const double *T;   /* [n]: seconds of each cluster's local broadcast */
	enum lb_coord_clock clock;
	enum lb_coord_dispersion dispersion; /* mostcrit only */
};

struct lb_coord_send {
	uint32_t from, to;
	double arrive;  /* when `to` holds the message */
	uint8_t factor; /* mostcrit: the factor applied (1, 2, 3); else 0 */
};

/* The heuristic's n - 1 sends, in decision order, into sends[] (room for
 * n - 1); returns the completion time under in->clock, or NaN when out of
 * memory.  Every g and L must be finite (the registry's builders refuse a
 * platform that does not link every pair of coordinators). */
double lb_coord_order(const struct lb_coord_in *in, enum lb_coord_heuristic h,
		      struct lb_coord_send *sends);

/* The registry's and the CLI's names ("ecef-lat-min"); NULL out of range. */
const char *lb_coord_name(enum lb_coord_heuristic h);

/* The heuristic of a name; -1 when none. */
int lb_coord_find(const char *name);

#endif
