/* What `lanebench check` expects of every port, and the pure judging of
 * the ports' facts (transports/port.h) and measured figures against it:
 * - an expectations file (--expect, docs/check-expect.md): per port, the
 *   speed, MTU, PCIe link, firmware, bandwidth floor and latency ceiling it
 *   must show;
 * - the inventory verdicts: a link down, an RDMA port not ACTIVE, a PCIe
 *   link below the device's own, and every fact that differs from the
 *   file, or else from the lane's majority (a lane's ports are alike in a
 *   healthy cluster: the odd one out is the suspect);
 * - a robust outlier rule for measured figures (median and MAD).
 * No I/O but reading the file; findings go to a callback as complete
 * sentences, never truncated. */
#ifndef LB_ENGINE_CHECK_EXPECT_H
#define LB_ENGINE_CHECK_EXPECT_H

#include <stddef.h>
#include <stdint.h>

#include "transports/port.h"

/* "0.9", "90%", "90 %" -> 0.9: a fraction in (0, 1], or a percentage in
 * (0, 100] with '%'.  A bare number above 1 ("90": ninety percent or
 * ninety times?) is ambiguous and refused, as is anything out of range,
 * empty, NaN, trailing junk.  Returns 0, or LB_EINPUT (lib/error.h) with a
 * reason naming the text and what is accepted ("bad fraction '90': ...");
 * *out is left unchanged then. */
int lb_parse_fraction(const char *text, double *out, char *err, size_t len);

/* One line of an expectations file. */
struct lb_expect_rule {
	int32_t lane;          /* -1: any lane */
	char nic[32];          /* "": any; else the lane's NIC name as given to -d
				* (rail0, mlx5_0) */
	char driver[32];       /* "": any; else the port's driver (mlx5_core) */
	double speed_bps;      /* bits/s; 0: not said */
	int32_t mtu;           /* 0: not said */
	int32_t pcie_width;    /* 0: not said */
	double pcie_gts;       /* 0: not said */
	double min_bw;         /* fraction of the expected rate; 0: not said */
	double min_bw_bps;     /* absolute floor, bytes/s; 0: not said */
	double max_lat;        /* seconds; 0: not said */
	char firmware[48];     /* "": not said */
	uint32_t line;         /* 1-based line it came from */
};

struct lb_expect {
	char path[256];        /* as given (truncated if longer), for reasons */
	struct lb_expect_rule *rules;
	size_t n;
};

/* The bounds of the file's values. */
#define LB_EXPECT_MTU_MIN 68     /* IPv4's minimum */
#define LB_EXPECT_MTU_MAX 65536  /* loopback's */
#define LB_EXPECT_LANE_MAX 4095

/* Reads FILE.  Errors: LB_EINPUT with "FILE:LINE: 'TOKEN': why" (unknown
 * selector or key, a key without a value, a bad value, a key given twice on
 * one line, a line without any key).  Missing file: LB_EINPUT naming it and
 * strerror.  On error *e is left empty (nothing to free). */
int lb_expect_load(const char *path, struct lb_expect *e, char *err, size_t len);
void lb_expect_free(struct lb_expect *e);

/* What applies to port (lane, nic, driver): every matching rule in file
 * order, a later rule's said fields overriding an earlier one's (min-bw as
 * one key: a later fraction replaces an earlier rate floor and the other
 * way round); `line` = the last rule that contributed (0: none).  The
 * selectors of *out are the port's (lane, nic, driver; NULL as ""). */
void lb_expect_for(const struct lb_expect *e, uint32_t lane, const char *nic, const char *driver,
		   struct lb_expect_rule *out);

/* lb_expect_for for a port whose facts are known: `nic NAME` matches the
 * name given to -d, the port's netdev or its RDMA device, `driver NAME`
 * the facts' driver.  e may be NULL (nothing said). */
void lb_expect_for_port(const struct lb_expect *e, uint32_t lane, const char *nic,
			const struct lb_port_facts *f, struct lb_expect_rule *out);

enum lb_level { LB_PASS = 0, LB_WARN = 1, LB_FAIL = 2, LB_ERROR = 3 };

/* The rank of a finding about a whole lane, not one port ("lane 0: no
 * majority MTU among 4 ports (2 x 1500, 2 x 9000)"). */
#define LB_FINDING_LANE UINT32_MAX

/* Called once per finding.  reason is complete words, e.g.
 * "MTU 9000, the lane's other 15 ports 1500",
 * "speed 50 Gbit/s, expected 100 Gbit/s (check.expect:3)",
 * "PCIe x8 (device x16)", "link down (operstate down, no carrier)",
 * "RDMA port DOWN", "firmware 28.1, the lane's other 7 ports 28.39" (WARN). */
typedef void (*lb_finding_fn)(void *ctx, uint32_t rank, uint32_t lane, enum lb_level level,
			      const char *reason);

/* Judges every port's facts; calls fn for each finding, ports in (lane,
 * rank) order, a lane's findings after its ports'.  facts[rank * lanes +
 * lane]; nics[rank * lanes + lane] the lane names (NULL, or an entry NULL:
 * none).  e may be NULL.
 * - link down (operstate known, not up nor unknown; or no carrier): FAIL;
 *   an RDMA port known and not ACTIVE: FAIL;
 * - PCIe width or speed below the device's own maximum: FAIL;
 * - speed, MTU, PCIe width and speed, firmware: against the file when it
 *   says one for the port (differing: FAIL), else against the lane's
 *   majority (differing: FAIL; firmware WARN); RDMA MTU and driver version
 *   against the majority only (FAIL, WARN);
 * - a majority: over the ports that know the value, at least 3 and more
 *   than half of them alike.  Known values differing without a majority:
 *   one WARN for the lane (rank LB_FINDING_LANE), no verdict on its ports. */
void lb_judge_inventory(const struct lb_port_facts *facts, const char *const *nics, uint32_t size,
			uint32_t lanes, const struct lb_expect *e, lb_finding_fn fn, void *ctx);

/* bits/s a port should reach: the file's speed, else the lane's majority
 * speed (never the port's own, which a NIC that negotiated down would talk
 * down), else 0 (unknown: the caller falls back to the measured median);
 * *from: "expect" (with the rule's line in *line), "majority", or "none"
 * (*line 0).  from and line may be NULL. */
double lb_expected_speed(const struct lb_port_facts *facts, uint32_t size, uint32_t lanes,
			 const struct lb_expect *e, const char *const *nics, uint32_t rank,
			 uint32_t lane, const char **from, uint32_t *line);

/* A population of measured figures (one per port of a lane). */
struct lb_robust {
	double median, mad;
	uint32_t n;
};

/* Fewer values than this are too few to call one an outlier. */
#define LB_ROBUST_MIN 5

/* Median and MAD (median absolute deviation) of the finite values of
 * v[0..n); n = how many were finite (0: median and mad 0). */
struct lb_robust lb_robust_of(const double *v, uint32_t n);

/* How far below the population x is (higher is better: a bandwidth; pass
 * a latency negated, or its inverse).
 * - floor_abs > 0 (an absolute expectation): x below it FAILs whatever
 *   the population;
 * - x at or above min_fraction * median: PASS;
 * - below it, and below median - 3 * 1.4826 * MAD too: FAIL (both: a
 *   tight population does not fail a port 1 % off; a wide one does not
 *   fail a port for the spread of the others);
 * - below the fraction only, or the population smaller than LB_ROBUST_MIN:
 *   WARN -- suspect, but the population cannot tell (the caller says
 *   which, from r->n).
 * Skew: the median is a healthy port's figure while more than half of
 * the ports are healthy (7 of 16 at half rate: the median is full rate,
 * the MAD 0, the 7 FAIL).  With half of them degraded (8 of 16) the
 * median falls between the two groups and the MAD spans them: the
 * degraded ports WARN, none FAILs; with more than half degraded the median
 * is the degraded rate and every port PASSes.  The rule cannot know
 * which group is right: only an expectation can (--lane-rate, or --expect
 * with speed or min-bw RATE), which the caller passes as floor_abs.
 * x not finite (nothing measured): LB_ERROR. */
enum lb_level lb_robust_judge(const struct lb_robust *r, double x, double min_fraction,
			      double floor_abs);

#endif
