/* check's verdicts (engine/check_verdict.c, lb_check_report) on what the
 * measuring part would hand them for 8 ranks x 1 lane, with every port's
 * facts READ from the sysfs fixtures (tests/data/sysfs, argv[1]) by
 * lb_port_read, as check_ports.c reads a live port: the downgrades veth
 * cannot make (a link negotiated at 50 Gbit/s, a PCIe link trained at x8)
 * go through the same reading and judging code a real cluster's do.
 * Also: an --expect file over the lane's majority, an error counter that
 * grew, a port that loses what it receives from every partner, and a
 * port that answers slowly: failed on latency, its links carrying the
 * pairs' latencies. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "engine/check_expect.h"
#include "engine/check_private.h"
#include "launch/portinfo.h"
#include "lib/error.h"

static const char *data_dir;
static char dir[] = "/tmp/lb-check-report-XXXXXX";

#define RANKS 8
#define ROUNDS 2
#define SLOTS 3        /* the rounds, then the third partner's */
#define FULL 12.4e9    /* bytes/s a healthy 100 Gbit/s port streams */
#define HALF 6.2e9     /* one that negotiated 50 Gbit/s */
#define BYTES (64ull << 20) /* verified per pair */
#define FRAMES 100000ull    /* units sent to a partner per pair */
#define LAT 2.3e-6          /* a healthy port's one-way latency */

/* ---- the cluster rank 0 knows at the end ---- */

struct cluster {
	struct lb_check_params p;
	const char *fixture[RANKS]; /* each rank's sysfs tree */
	double rate[RANKS];         /* what its port streams at */
	double rx_loss[RANKS];      /* the share of what is sent to it sent again */
	double cap[RANKS][RANKS];   /* [s][r]: what s reaches sending r; 0: no cap */
	int third[RANKS];           /* 1: it looked bad and met its third partner */
	double lat[RANKS];          /* its one-way latency; 0: LAT */
	struct lb_port_facts *facts; /* what a.facts points to */
	struct check_all a;
};

static void read_facts(const char *fixture, struct lb_port_facts *f)
{
	char root[1024];
	snprintf(root, sizeof(root), "%s/%s", data_dir, fixture);
	lb_port_read(root, "rail0", f);
}

/* A healthy cluster of 100 Gbit/s ports: what the scenarios change. */
static void healthy(struct cluster *c)
{
	*c = (struct cluster){
		.p = { .transport = "tcp", .min_bw = 0.9, .max_loss = 0.001, .max_errors = 0,
		       .max_model_ratio = 2, .max_bound_ratio = 2, .bcast_bytes = 1 << 20 },
	};
	for (uint32_t k = 0; k < RANKS; k++) {
		c->fixture[k] = "healthy-100g";
		c->rate[k] = FULL;
	}
}

/* Rank k's record of its pair in `slot` with q (-1: sat out), as
 * measure_pair leaves it: a link runs at the slower end's rate, the lower
 * rank measures latency, what it sent q is resent at q's loss. */
static void fill_pair(const struct cluster *c, struct check_pair *m, uint32_t k, int q)
{
	*m = (struct check_pair){ .partner = -1, .lat = NAN, .tx = NAN };
	if (q < 0)
		return;
	m->partner = q;
	m->ok = 1;
	m->tx = fmin(c->rate[k], c->rate[q]);
	m->tx = c->cap[k][q] > 0 ? fmin(m->tx, c->cap[k][q]) : m->tx;
	m->lat = k < (uint32_t)q ? fmax(LAT, fmax(c->lat[k], c->lat[q])) : NAN;
	m->verified = BYTES;
	m->sent = FRAMES;
	m->resent = (uint64_t)((double)FRAMES * c->rx_loss[q]);
}

/* What check.c's alloc_all and gather make, from the scenario; the ends
 * (counters' growth, wiring) zeroed. */
static int build(struct cluster *c)
{
	struct check_all *a = &c->a;
	struct check_rank *ranks = calloc(RANKS, sizeof(*ranks));
	struct check_pair *pairs = calloc(RANKS * SLOTS, sizeof(*pairs));
	struct check_pair *aggs = calloc(RANKS * ROUNDS, sizeof(*aggs));
	struct lb_port_facts *facts = c->facts = calloc(RANKS, sizeof(*facts));
	struct check_port_end *ends = calloc(RANKS, sizeof(*ends));
	*a = (struct check_all){ .p = &c->p, .transport = "tcp", .size = RANKS, .lanes = 1,
				 .rounds = ROUNDS, .slots = SLOTS, .pair_timeout = 5, .ranks = ranks,
				 .pairs = pairs, .aggs = aggs, .facts = facts, .ends = ends,
				 .ends_all = ends };
	if (!ranks || !pairs || !aggs || !facts || !ends)
		return -1;
	for (uint32_t k = 0; k < RANKS; k++) {
		snprintf(ranks[k].host, sizeof(ranks[k].host), "node%u", k);
		snprintf(ranks[k].nic[0], sizeof(ranks[k].nic[0]), "rail0");
		read_facts(c->fixture[k], &facts[k]);
		ranks[k].speed[0] = facts[k].speed_bps / 8;
		for (uint32_t r = 0; r < ROUNDS; r++) {
			fill_pair(c, &pairs[k * SLOTS + r], k, lb_check_partner(k, RANKS, r));
			fill_pair(c, &aggs[k * ROUNDS + r], k, lb_check_partner(k, RANKS, r));
		}
		fill_pair(c, &pairs[k * SLOTS + ROUNDS], k, -1);
	}
	for (uint32_t k = 0; k < RANKS; k++)
		if (c->third[k]) { /* an involution: both ends meet */
			int q = lb_check_third(k, RANKS);
			fill_pair(c, &pairs[k * SLOTS + ROUNDS], k, q);
			fill_pair(c, &pairs[(uint32_t)q * SLOTS + ROUNDS], (uint32_t)q, (int)k);
		}
	return 0;
}

static void release(struct cluster *c)
{
	free(c->a.ranks);
	free(c->a.pairs);
	free(c->a.aggs);
	free(c->facts);
	free(c->a.ends_all);
}

/* ---- the rows ---- */

struct got {
	char phase[16], verdict[8], from[16], ifname[32], driver[32], bus[32], source[32];
	char *reason, *counters;
	double rank, speed, mtu, numa, pcie_gts, pcie_max_gts, pcie_width, pcie_max_width;
	double expected, tx, rx, tx_loss, rx_loss;
};

struct caught {
	struct got rows[4 * RANKS];
	size_t n;
	double link_lat[RANKS * RANKS]; /* [sender * RANKS + receiver]; 0: no link row */
	char link_verdict[RANKS * RANKS][8];
	char *link_reason[RANKS * RANKS];
};

static void text_of(const struct lb_result *r, const char *name, char *buf, size_t len)
{
	const char *s = lb_result_val(r, name)->s;
	snprintf(buf, len, "%s", s ? s : "");
}

static double num_of(const struct lb_result *r, const char *name)
{
	return lb_result_val(r, name)->d;
}

static char *dup_of(const struct lb_result *r, const char *name)
{
	const char *s = lb_result_val(r, name)->s;
	return strdup(s ? s : "");
}

/* The sink: every row's columns copied (they live only during the call). */
static int catch_row(void *ctx, const struct lb_result *r, char *err, size_t len)
{
	struct caught *c = ctx;
	const char *phase = lb_result_val(r, "phase")->s;
	if (phase && strcmp(phase, "link") == 0) { /* the matrix's cells: test_check_links */
		size_t at = (size_t)num_of(r, "rank") * RANKS + (size_t)num_of(r, "peer");
		if (at < RANKS * RANKS) {
			c->link_lat[at] = num_of(r, "latency_seconds");
			text_of(r, "verdict", c->link_verdict[at], sizeof(c->link_verdict[at]));
			free(c->link_reason[at]);
			c->link_reason[at] = dup_of(r, "reason");
		}
		return 0;
	}
	if (c->n == sizeof(c->rows) / sizeof(c->rows[0]))
		return lb_errf(err, len, "more rows than a cluster of %d ranks makes", RANKS);
	struct got *g = &c->rows[c->n++];
	text_of(r, "phase", g->phase, sizeof(g->phase));
	text_of(r, "verdict", g->verdict, sizeof(g->verdict));
	text_of(r, "expected_from", g->from, sizeof(g->from));
	text_of(r, "ifname", g->ifname, sizeof(g->ifname));
	text_of(r, "driver", g->driver, sizeof(g->driver));
	text_of(r, "pci_bus", g->bus, sizeof(g->bus));
	text_of(r, "facts_from", g->source, sizeof(g->source));
	g->reason = dup_of(r, "reason");
	g->counters = dup_of(r, "counter_deltas");
	g->rank = num_of(r, "rank");
	g->speed = num_of(r, "speed_bits_per_second");
	g->mtu = num_of(r, "mtu_bytes");
	g->numa = num_of(r, "numa_node");
	g->pcie_gts = num_of(r, "pcie_speed_gt_per_second");
	g->pcie_max_gts = num_of(r, "pcie_max_speed_gt_per_second");
	g->pcie_width = num_of(r, "pcie_width_lanes");
	g->pcie_max_width = num_of(r, "pcie_max_width_lanes");
	g->expected = num_of(r, "expected_bytes_per_second");
	g->tx = num_of(r, "tx_bytes_per_second");
	g->rx = num_of(r, "rx_bytes_per_second");
	g->tx_loss = num_of(r, "tx_loss_ratio");
	g->rx_loss = num_of(r, "rx_loss_ratio");
	return 0;
}

static void caught_free(struct caught *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->rows[i].reason);
		free(c->rows[i].counters);
	}
	for (size_t i = 0; i < RANKS * RANKS; i++)
		free(c->link_reason[i]);
	*c = (struct caught){ 0 };
}

/* The verdicts of cluster c, caught. */
static int report(struct cluster *c, struct caught *out)
{
	char err[256] = "";
	const struct lb_sink sink = { .row = catch_row, .ctx = out };
	*out = (struct caught){ 0 };
	int rc = build(c) ? -1 : lb_check_report(&c->a, &sink, err, sizeof(err));
	CHECK(rc == 0, "lb_check_report: %d %s", rc, err);
	release(c);
	return rc;
}

static const struct got *row_of(const struct caught *c, const char *phase, uint32_t rank)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->rows[i].phase, phase) == 0 && c->rows[i].rank == rank)
			return &c->rows[i];
	return NULL;
}

static size_t rows_in(const struct caught *c, const char *phase)
{
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		n += strcmp(c->rows[i].phase, phase) == 0;
	return n;
}

static int has(const struct got *g, const char *text)
{
	return strstr(g->reason, text) != NULL;
}

#define VERDICT(g, want)                                                                     \
	CHECK(strcmp((g)->verdict, want) == 0, "rank %g: %s, want %s: %s", (g)->rank,         \
	      (g)->verdict, want, (g)->reason)
#define SAYS(g, text) CHECK(has(g, text), "rank %g: no \"%s\" in \"%s\"", (g)->rank, text, (g)->reason)

/* The facts columns of a port row: what the fixture holds. */
static void check_facts(const struct got *g, double speed, double width, double gts)
{
	CHECK(strcmp(g->ifname, "rail0") == 0 && strcmp(g->driver, "mlx5_core") == 0 &&
		      strcmp(g->bus, "0000:3b:00.0") == 0 && strcmp(g->source, "sysfs") == 0,
	      "rank %g: ifname '%s' driver '%s' bus '%s' facts_from '%s'", g->rank, g->ifname,
	      g->driver, g->bus, g->source);
	CHECK(g->speed == speed && g->mtu == 9000 && g->numa == 0, "rank %g: speed %g mtu %g numa %g",
	      g->rank, g->speed, g->mtu, g->numa);
	CHECK(g->pcie_width == width && g->pcie_max_width == 16 && g->pcie_gts == gts &&
		      g->pcie_max_gts == 16, "rank %g: PCIe %g GT/s x%g of %g GT/s x%g", g->rank,
	      g->pcie_gts, g->pcie_width, g->pcie_max_gts, g->pcie_max_width);
}

/* 6 healthy ports, rank 5 negotiated 50 Gbit/s (its pairs at half rate;
 * with both partners slow it met its third, rank 1), rank 6's PCIe link
 * trained at x8. */
static void downgraded(struct cluster *c)
{
	healthy(c);
	c->fixture[5] = "negotiated-50g";
	c->rate[5] = HALF;
	c->third[5] = 1;
	c->fixture[6] = "pcie-x8";
}

static void test_downgrades(void)
{
	struct cluster c;
	struct caught got;
	downgraded(&c);
	if (report(&c, &got))
		return;
	CHECK(rows_in(&got, "port") == RANKS && rows_in(&got, "aggregate") == RANKS &&
		      got.n == 2 * RANKS, "%zu rows: %zu port, %zu aggregate", got.n,
	      rows_in(&got, "port"), rows_in(&got, "aggregate"));
	for (uint32_t k = 0; k < RANKS; k++) {
		const struct got *g = row_of(&got, "port", k);
		CHECK(g != NULL, "no port row for rank %u", k);
		if (!g)
			continue;
		check_facts(g, k == 5 ? 50e9 : 100e9, k == 6 ? 8 : 16, k == 6 ? 8 : 16);
		/* the lane's majority, never the port's own 50 Gbit/s */
		CHECK(strcmp(g->from, "majority") == 0 && g->expected == 12.5e9,
		      "rank %u: expected %g from %s", k, g->expected, g->from);
		if (k == 5) {
			VERDICT(g, "FAIL");
			SAYS(g, "speed 50 Gbit/s, the lane's other 7 ports 100 Gbit/s");
			SAYS(g, "tx 49.6 Gbit/s, expected 100 Gbit/s (50 %, min 90 %)");
			SAYS(g, "rx 49.6 Gbit/s, expected 100 Gbit/s (50 %, min 90 %)");
		} else if (k == 6) {
			VERDICT(g, "FAIL");
			SAYS(g, "PCIe x8 (device x16)");
			SAYS(g, "PCIe 8 GT/s (device 16 GT/s)");
			CHECK(!has(g, "expected") && !has(g, "the lane's other"),
			      "rank 6: its rate is fine, its PCIe said once: %s", g->reason);
		} else {
			VERDICT(g, "PASS");
			CHECK(g->reason[0] == '\0', "rank %u: %s", k, g->reason);
			CHECK(g->tx == FULL && g->rx == FULL, "rank %u: tx %g rx %g", k, g->tx, g->rx);
		}
		const struct got *agg = row_of(&got, "aggregate", k);
		CHECK(agg && strcmp(agg->verdict, k == 5 ? "FAIL" : "PASS") == 0,
		      "rank %u's aggregate: %s", k, agg ? agg->verdict : "(none)");
	}
	caught_free(&got);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL, "cannot write %s", path);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The file over the majority: every port's MTU 9000 is wrong, the file
 * and its line named; rank 5's speed against the file's. */
static void test_expect_file(const char *path)
{
	struct cluster c;
	struct caught got;
	struct lb_expect e;
	char err[512] = "", want[600];
	write_file(path, "lane 0 speed 100gbit mtu 1500\n");
	int rc = lb_expect_load(path, &e, err, sizeof(err));
	CHECK(rc == 0 && e.n == 1, "load: %d %s", rc, err);
	if (rc)
		return;
	downgraded(&c);
	c.p.expect = &e;
	if (report(&c, &got) == 0) {
		for (uint32_t k = 0; k < RANKS; k++) {
			const struct got *g = row_of(&got, "port", k);
			if (!g)
				continue;
			VERDICT(g, "FAIL");
			snprintf(want, sizeof(want), "MTU 9000, expected 1500 (%s:1)", path);
			SAYS(g, want);
			CHECK(strcmp(g->from, "expect") == 0 && g->expected == 12.5e9,
			      "rank %u: expected %g from %s", k, g->expected, g->from);
			CHECK(!has(g, "the lane's other"), "rank %u: the file, not the majority: %s", k,
			      g->reason);
		}
		const struct got *g = row_of(&got, "port", 5);
		snprintf(want, sizeof(want), "speed 50 Gbit/s, expected 100 Gbit/s (%s:1)", path);
		if (g)
			SAYS(g, want);
		caught_free(&got);
	}
	lb_expect_free(&e);
	unlink(path);
}

/* A NIC error counter that grew fails the port and is named; its traffic
 * counters are recorded, not judged. */
static void test_counters(void)
{
	struct cluster c;
	struct caught got;
	healthy(&c);
	if (build(&c)) {
		release(&c);
		return;
	}
	struct lb_port_counters *d = &c.a.ends_all[2].delta;
	*d = (struct lb_port_counters){ .n = 3,
					.c = { { "stat:rx_packets", 7456321 },
					       { "stat:tx_packets", 7455980 },
					       { "stat:rx_crc_errors", 5 } } };
	char err[256] = "";
	const struct lb_sink sink = { .row = catch_row, .ctx = &got };
	got.n = 0;
	int rc = lb_check_report(&c.a, &sink, err, sizeof(err));
	CHECK(rc == 0, "lb_check_report: %d %s", rc, err);
	release(&c);
	for (uint32_t k = 0; rc == 0 && k < RANKS; k++) {
		const struct got *g = row_of(&got, "port", k);
		if (!g)
			continue;
		if (k == 2) {
			VERDICT(g, "FAIL");
			SAYS(g, "stat:rx_crc_errors grew by 5 (max 0)");
			CHECK(strcmp(g->counters,
				     "stat:rx_packets=7456321;stat:tx_packets=7455980;stat:rx_crc_errors=5") == 0,
			      "counter_deltas '%s'", g->counters);
		} else {
			VERDICT(g, "PASS");
		}
	}
	caught_free(&got);
}

/* Rank 3 receives with 1 % loss from every partner (2, 4, and 7 its
 * third), and rank 2 reached it at an eighth of the rate (Soft-RoCE waits
 * an ack timeout for each loss; the others happened to lose less time):
 * rank 3 fails, each partner's figure named; they pass -- what they sent
 * elsewhere came through, and rank 2's cell into rank 3, half its row, is
 * left out of the rows judged by rate (in the guest such a partner warned
 * "sends slowly to every receiver") -- and the cells into rank 3 warn,
 * naming its loss. */
static void test_loss(void)
{
	struct cluster c;
	struct caught got;
	healthy(&c);
	c.rx_loss[3] = 0.01;
	c.cap[2][3] = FULL / 8;
	c.third[3] = 1;
	if (report(&c, &got))
		return;
	for (uint32_t k = 0; k < RANKS; k++) {
		const struct got *g = row_of(&got, "port", k);
		if (!g)
			continue;
		if (k == 3) {
			VERDICT(g, "FAIL");
			SAYS(g, "loses what it receives: every partner retransmitted to it (rank 2: 1.00 %, "
				"1000 of 100000; rank 4: 1.00 %, 1000 of 100000; rank 7: 1.00 %, 1000 of "
				"100000; max 0.1 %)");
			CHECK(!has(g, "loses what it sends"), "rank 3 sends fine: %s", g->reason);
			CHECK(g->rx_loss == 0.01 && g->tx_loss == 0, "rank 3: rx loss %g tx loss %g",
			      g->rx_loss, g->tx_loss);
		} else {
			VERDICT(g, "PASS");
			CHECK(g->rx_loss == 0 && g->tx_loss == 0, "rank %u: rx loss %g tx loss %g", k,
			      g->rx_loss, g->tx_loss);
		}
	}
	uint32_t into = 0;
	for (uint32_t k = 0; k < RANKS; k++) {
		const char *v = got.link_verdict[k * RANKS + 3], *why = got.link_reason[k * RANKS + 3];
		into += why != NULL;
		CHECK(!why || (strcmp(v, "WARN") == 0 && strstr(why, "1 % of it sent again: rank 3's "
								"port loses what it receives")),
		      "link %u->3: %s %s", k, v, why);
	}
	CHECK(into == 3, "%u link rows into rank 3, want 3 (from 2, 4 and 7)", into);
	caught_free(&got);
}

/* Rank 5 answers 40 x slower than the others with both its partners (4
 * and 6): its port fails on latency, naming it, and the link rows say
 * with whom: each pair's latency on its two cells, rank 5's slow ones. */
static void test_latency(void)
{
	struct cluster c;
	struct caught got;
	healthy(&c);
	c.lat[5] = 40 * LAT;
	if (report(&c, &got))
		return;
	const struct got *p5 = row_of(&got, "port", 5);
	CHECK(p5 && strcmp(p5->verdict, "FAIL") == 0 && has(p5, "latency"),
	      "slow rank 5: its port FAILs on latency: %s", p5 ? p5->reason : "no row");
	for (uint32_t k = 0; k < RANKS; k++) {
		const struct got *g = row_of(&got, "port", k);
		CHECK(k == 5 || (g && strcmp(g->verdict, "PASS") == 0), "rank %u: %s %s", k,
		      g ? g->verdict : "no row", g ? g->reason : "");
	}
	for (uint32_t s = 0; s < RANKS; s++)
		for (uint32_t r = 0; r < RANKS; r++) {
			int pair = lb_check_partner(s, RANKS, 0) == (int)r ||
				   lb_check_partner(s, RANKS, 1) == (int)r;
			double want = !pair ? 0 : s == 5 || r == 5 ? 40 * LAT : LAT;
			CHECK(got.link_lat[s * RANKS + r] == want, "link %u->%u: latency %g, want %g", s,
			      r, got.link_lat[s * RANKS + r], want);
		}
	caught_free(&got);
}

/* The limits check's second looks use (check_verdict_limits) are the
 * verdict's: with ranks 1 and 3 slow, half the pairs are slow and their
 * median is 20.5 x LAT, but five of eight ports have a fast partner, so
 * the ports' median is LAT and a port over 10 x LAT fails: a limit from
 * the pairs (205 x LAT) would leave such a port failed, unlooked at. */
static void test_limits(void)
{
	struct cluster c;
	double median_tx, median_rx, max_lat;
	healthy(&c);
	c.lat[1] = c.lat[3] = 40 * LAT;
	if (build(&c) == 0) {
		check_verdict_limits(&c.a, &median_tx, &median_rx, &max_lat);
		CHECK(fabs(max_lat - 10 * LAT) < 1e-12, "latency limit %g, want %g (10 x the ports')",
		      max_lat, 10 * LAT);
		CHECK(median_tx == FULL, "median rate %g, want %g", median_tx, FULL);
	}
	release(&c);
}

/* The received rates' median is the verdict's too: ranks 0, 1, 3, 5 and 7
 * send at a quarter (5 of 8 ports: the median sent is FULL / 4), and
 * ranks 0, 2, 4, 6, whose partners are all among them, receive at a
 * quarter (4 of 8: the median received is halfway, 0.625 FULL). */
static void test_limits_rx(void)
{
	static const uint32_t slow_senders[] = { 0, 1, 3, 5, 7 };
	struct cluster c;
	double median_tx, median_rx, max_lat;
	healthy(&c);
	if (build(&c) == 0) {
		for (size_t i = 0; i < sizeof(slow_senders) / sizeof(slow_senders[0]); i++)
			for (uint32_t r = 0; r < ROUNDS; r++)
				c.a.pairs[slow_senders[i] * SLOTS + r].tx = FULL / 4;
		check_verdict_limits(&c.a, &median_tx, &median_rx, &max_lat);
		CHECK(median_tx == FULL / 4, "median sent %g, want %g", median_tx, FULL / 4);
		CHECK(fabs(median_rx - 0.625 * FULL) < 1e-6 * FULL, "median received %g, want %g",
		      median_rx, 0.625 * FULL);
	}
	release(&c);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_check_report SYSFS_FIXTURES_DIR\n");
		return 2;
	}
	data_dir = argv[1];
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char path[256];
	snprintf(path, sizeof(path), "%s/check.expect", dir);
	test_downgrades();
	test_expect_file(path);
	test_counters();
	test_loss();
	test_latency();
	test_limits();
	test_limits_rx();
	rmdir(dir);
	return check_status("check-report");
}
