/* A platform: the network a schedule runs on when it is not homogeneous
 * (seeds 000, 001, 002, 004; docs/papers.md#model).
 *
 * Nodes are ranks 0 .. nodes-1, each with `lanes` lanes (lane i on rail i).
 * A transfer of n bytes from u to v on lane l takes, by the general model
 * (docs/papers.md#model-timing):
 *   - the ports of both ends for occ + n / bw   (its occupation, "T_{u,v}");
 *   - lat more before it arrives: lat is time in flight, it occupies no port,
 *     so a pipelined stream pays it once, not once per slice.
 * bw == 0 means there is no link from u to v on that lane.
 *
 * Storage is sparse: one default link for every ordered pair and lane, then
 * rules that override some fields of some pairs ("link 0 1 bw 95MB/s"), so
 * a platform of 1,024 nodes that differs in a few links stays small.  A rule
 * names one lane or all of them; on lookup the default is applied first,
 * then the all-lanes rule of the pair, then its lane's rule.  A node's rate
 * caps the bandwidth of every link that starts or ends at it; the
 * simulator's bounded multi-port model (model/sim.h) also makes it what the
 * node's concurrent sends on a lane share, and its concurrent receives.
 *
 * Sites (seeds 002, 003, 004) are parsed and kept for the collectives that
 * use them; nothing in seed 000 reads them.
 *
 * The text format (one statement per line, '#' starts a comment; sizes,
 * times and rates as lib/units.h parses them):
 *
 *   # lanebench platform 1
 *   nodes 8
 *   lanes 2
 *   default lat 0 occ 5us bw 1gbit         every ordered pair, every lane
 *   default none                           no link unless a link line says
 *   node 4 send 160us recv 130us gap 160us per-message overheads
 *   node 4 rate 600mbit                    NIC cap, every lane
 *   link 0 1 bw 95MB/s                     both directions, every lane
 *   link 2 5 lane 1 bw 50mbit lat 350us oneway
 *   nolink 0 7                             both directions (oneway: u->v only)
 *   site 0 ranks 0-15                      sites: contiguous or listed ranks
 *   coordinator 1 16                       default: the site's lowest rank
 *   site 1 local-bcast 1.2s
 *   wan 0 1 lat 10ms bw 1gbit              between two sites, both directions
 *   barrier site 0 50us                    or "barrier all 200us"
 *
 * Values are bounded where they enter (lib/units.h): rates (bw, rate) from
 * 1 kbit/s to 10 Tbit/s, times (lat, occ, send, recv, gap, local-bcast,
 * barrier) 0 or from 1 ns to 1 hour, nodes 1 to 4096, lanes 1 to 255; so
 * every occupation the models divide by or solve with is finite and > 0.
 *
 * Errors name the file, the line and the token: "p.txt:4: 'bw -1gbit': ...".
 * The first line may be the magic "# lanebench platform 1"; it is optional
 * (a hand-written file may start with "nodes"), but a file whose first line
 * names another version is refused.  "nodes" must be given, and it and
 * "lanes" (default 1) come before every other statement.  Sites are
 * numbered from 0 in the order their first "site S ranks" line appears;
 * more "site S ranks" lines add ranks to a site.
 */
#ifndef LB_PLATFORM_H
#define LB_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#define LB_PLATFORM_ALL_LANES UINT32_MAX
#define LB_PLATFORM_NO_SITE UINT32_MAX

struct lb_link {
	double lat; /* seconds in flight */
	double occ; /* seconds of port occupation per message (o) */
	double bw;  /* bytes/s; 0 = no link */
};

/* Which fields of a rule are set (a rule sets only what its line names). */
enum lb_link_field {
	LB_LINK_LAT = 1,
	LB_LINK_OCC = 2,
	LB_LINK_BW = 4,
};

struct lb_link_rule {
	uint32_t u, v;
	uint32_t lane; /* LB_PLATFORM_ALL_LANES or one lane */
	unsigned fields; /* enum lb_link_field bits */
	struct lb_link link;
};

struct lb_node {
	double send; /* sender busy per message: multi-port send_u, LogP T_send */
	double recv; /* receiver busy per message: LogP T_recv */
	double gap;  /* least time between two sends (T_hold) */
	double rate; /* NIC cap in bytes/s, every lane; 0 = none */
	uint32_t site; /* LB_PLATFORM_NO_SITE when the platform has no sites */
};

struct lb_site {
	uint32_t coordinator; /* a rank of the site */
	double local_bcast;   /* seconds, T_k given directly (seed 002); 0 = unset */
	double barrier;       /* seconds, L_{1,j} (seed 004); 0 = unset */
};

struct lb_wan {
	uint32_t a, b; /* sites, a != b; both directions */
	double lat, bw;
};

struct lb_platform {
	uint32_t nodes, lanes;
	struct lb_link dflt;
	struct lb_node *node; /* [nodes] */
	struct lb_link_rule *rule; /* sorted by (u, v, lane) once sealed */
	size_t nrules, rule_cap;
	int sealed;
	uint32_t sites; /* 0 = no sites */
	struct lb_site *site; /* [sites] */
	struct lb_wan *wan;
	size_t nwan;
	double barrier_all; /* seconds, L_{2,0} (seed 004); 0 = unset */
};

/* A platform of `nodes` nodes and `lanes` lanes, every link absent (bw 0)
 * and every overhead 0 until set.  NULL on bad sizes or no memory. */
struct lb_platform *lb_platform_new(uint32_t nodes, uint32_t lanes);
void lb_platform_free(struct lb_platform *pf);

/* Adds a rule for u -> v (lane, or LB_PLATFORM_ALL_LANES) setting the
 * `fields` of `link`; a later rule for the same (u, v, lane) wins field by
 * field.  Unseals the platform.  Returns 0, or -1 (no memory, or u, v or
 * lane out of range, or u == v). */
int lb_platform_set_link(struct lb_platform *pf, uint32_t u, uint32_t v,
			 uint32_t lane, unsigned fields, const struct lb_link *link);

/* Sorts and merges the rules; required before lookups.  Returns 0 or -1. */
int lb_platform_seal(struct lb_platform *pf);

/* The link u -> v on `lane` after the default, the rules and the nodes'
 * rate caps (sealed platform; u != v). */
struct lb_link lb_platform_link(const struct lb_platform *pf, uint32_t u,
				uint32_t v, uint32_t lane);

static inline int lb_platform_has_link(const struct lb_platform *pf, uint32_t u,
				       uint32_t v, uint32_t lane)
{
	return u != v && lb_platform_link(pf, u, v, lane).bw > 0;
}

/* Port occupation of an n-byte message u -> v on lane: occ + n / bw
 * (seed 000's T_{u,v}); INFINITY when there is no link. */
double lb_platform_occupation(const struct lb_platform *pf, uint32_t u,
			      uint32_t v, uint32_t lane, uint64_t bytes);

/* The directed edges of one lane, (u, v) ascending: *out is malloc'd
 * (caller frees), *count edges.  Returns 0 or -1 (no memory). */
struct lb_platform_edge {
	uint32_t u, v;
};
int lb_platform_edges(const struct lb_platform *pf, uint32_t lane,
		      struct lb_platform_edge **out, size_t *count);

/* How many edges lb_platform_edges would return, allocating nothing: a
 * caller can refuse a graph too large before it pays for it. */
size_t lb_platform_edge_count(const struct lb_platform *pf, uint32_t lane);

/* 0 when every node is reachable from root over `lane`'s links, else -1
 * with the first unreachable node named in err. */
int lb_platform_check_reachable(const struct lb_platform *pf, uint32_t root,
				uint32_t lane, char *err, size_t errlen);

/* ---- the text format (net/platform_text.c) ---- */

#define LB_PLATFORM_MAX_NODES 4096 /* a site's rank list holds them all */
#define LB_PLATFORM_MAX_LANES 255

/* Parses the text format above into a sealed platform (free it with
 * lb_platform_free).  file names the text in messages.  NULL with one line
 * "FILE:LINE: 'TOKEN': why" in err on any bad line, or "FILE:LINE: 'nodes
 * N': missing".  Whether every node can be reached is not checked here: it
 * depends on the root (lb_platform_check_reachable). */
struct lb_platform *lb_platform_parse(const char *text, const char *file,
				      char *err, size_t errlen);

/* The platform as text that lb_platform_parse reads back to an equal
 * platform (every number printed to 17 significant digits): magic line,
 * nodes, lanes, default, nodes' overheads, each rule as "oneway" lines, then
 * sites (each with at least one rank), wans and barriers.  malloc'd (caller
 * frees); NULL when out of memory. */
char *lb_platform_format(const struct lb_platform *pf);

/* FNV-1a (64 bits) of lb_platform_format's text: equal platforms, equal
 * hashes (the CSV's platform column).  0 when out of memory. */
uint64_t lb_platform_hash(const struct lb_platform *pf);

#endif
