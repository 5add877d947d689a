/* What check expects of a port (engine/check_expect.c): the threshold and
 * file parsers with their exact messages, what applies to a port, the
 * inventory verdicts (majority, file, PCIe, firmware, link), the expected
 * speed, and the robust outlier rule on small and skewed populations. */
#include <stdlib.h>
#include <unistd.h>

#include "../check.h"
#include "engine/check_expect.h"
#include "lib/error.h"

static char dir[] = "/tmp/lb-check-expect-XXXXXX";

/* ---- fractions ---- */

static void fraction_ok(const char *s, double want)
{
	double v = -1;
	char err[256] = "";
	int rc = lb_parse_fraction(s, &v, err, sizeof(err));
	CHECK(rc == 0 && v == want, "'%s': rc %d, %g (want %g): %s", s, rc, v, want, err);
}

static void fraction_bad(const char *s, const char *why)
{
	double v = -1;
	char err[256] = "", want[256];
	snprintf(want, sizeof(want), "bad fraction '%s': %s", s, why);
	int rc = lb_parse_fraction(s, &v, err, sizeof(err));
	CHECK(rc == LB_EINPUT && v == -1, "'%s': rc %d, %g", s, rc, v);
	CHECK(strcmp(err, want) == 0, "'%s': got \"%s\"\n  want \"%s\"", s, err, want);
}

#define FORMS "a fraction in (0, 1] (0.9) or a percentage in (0, 100] (90%)"

static void test_fraction(void)
{
	fraction_ok("0.9", 0.9);
	fraction_ok("90%", 0.9);
	fraction_ok("90 %", 0.9);
	fraction_ok("1", 1);
	fraction_ok("100%", 1);
	fraction_ok(".5", 0.5);
	fraction_ok("0.5%", 0.005);
	fraction_bad("90", "ambiguous: a bare number above 1 is a percentage or a multiple (write 90% or a fraction in (0, 1])");
	fraction_bad("1.5", "ambiguous: a bare number above 1 is a percentage or a multiple (write 1.5% or a fraction in (0, 1])");
	fraction_bad("0", "out of range: expected " FORMS);
	fraction_bad("0%", "out of range: expected " FORMS);
	fraction_bad("101%", "out of range: expected " FORMS);
	fraction_bad("", "expected " FORMS);
	fraction_bad("nan", "expected " FORMS);
	fraction_bad("inf", "expected " FORMS);
	fraction_bad("-0.5", "expected " FORMS);
	fraction_bad(" 0.9", "expected " FORMS);
	fraction_bad("0.9 ", "expected " FORMS);
	fraction_bad("0.9x", "expected " FORMS);
	fraction_bad("90%%", "expected " FORMS);
	fraction_bad("1e-1", "expected " FORMS);
	fraction_bad("0.4.5", "expected " FORMS);
	fraction_bad(".", "expected " FORMS);
}

/* ---- the file ---- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL, "cannot write %s", path);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

#define EXAMPLE                                                  \
	"# lanebench check --expect: what every port must show\n" \
	"all          mtu 9000 min-bw 90%\n"                       \
	"\n"                                                       \
	"lane 0       speed 100gbit pcie-width 16   # the rails\n" \
	"nic mlx5_1   speed 200gbit max-lat 5us\n"                 \
	"driver ice   firmware 4.40 min-bw 80gbit pcie-speed 16GT/s\n"

static void test_load_example(const char *path)
{
	struct lb_expect e;
	char err[512] = "";
	write_file(path, EXAMPLE);
	int rc = lb_expect_load(path, &e, err, sizeof(err));
	CHECK(rc == 0 && e.n == 4, "example: rc %d, %zu rules: %s", rc, rc ? 0 : e.n, err);
	if (rc || e.n != 4)
		return;
	const struct lb_expect_rule *r = e.rules;
	CHECK(r[0].lane == -1 && !r[0].nic[0] && !r[0].driver[0] && r[0].mtu == 9000 &&
		      r[0].min_bw == 0.9 && r[0].line == 2, "all: lane %d mtu %d min-bw %g line %u",
	      r[0].lane, r[0].mtu, r[0].min_bw, r[0].line);
	CHECK(r[1].lane == 0 && r[1].speed_bps == 100e9 && r[1].pcie_width == 16 && r[1].line == 4,
	      "lane 0: lane %d speed %g width %d line %u", r[1].lane, r[1].speed_bps, r[1].pcie_width,
	      r[1].line);
	CHECK(strcmp(r[2].nic, "mlx5_1") == 0 && r[2].speed_bps == 200e9 &&
		      check_close(r[2].max_lat, 5e-6, 1e-12), "nic: %s %g %g", r[2].nic, r[2].speed_bps,
	      r[2].max_lat);
	CHECK(strcmp(r[3].driver, "ice") == 0 && strcmp(r[3].firmware, "4.40") == 0 &&
		      r[3].min_bw_bps == 1e10 && r[3].min_bw == 0 && r[3].pcie_gts == 16,
	      "driver: %s fw %s floor %g gts %g", r[3].driver, r[3].firmware, r[3].min_bw_bps,
	      r[3].pcie_gts);

	/* lane 0, nic mlx5_1, driver ice: every rule, later over earlier */
	struct lb_expect_rule x;
	lb_expect_for(&e, 0, "mlx5_1", "ice", &x);
	CHECK(x.mtu == 9000 && x.speed_bps == 200e9 && x.pcie_width == 16 && x.pcie_gts == 16 &&
		      check_close(x.max_lat, 5e-6, 1e-12) && strcmp(x.firmware, "4.40") == 0 &&
		      x.min_bw == 0 && x.min_bw_bps == 1e10 && x.line == 6 && x.lane == 0 &&
		      strcmp(x.nic, "mlx5_1") == 0 && strcmp(x.driver, "ice") == 0,
	      "all four: mtu %d speed %g min-bw %g/%g line %u", x.mtu, x.speed_bps, x.min_bw,
	      x.min_bw_bps, x.line);
	lb_expect_for(&e, 0, "mlx5_0", "mlx5_core", &x);
	CHECK(x.speed_bps == 100e9 && x.min_bw == 0.9 && x.max_lat == 0 && !x.firmware[0] &&
		      x.line == 4, "lane 0: speed %g min-bw %g line %u", x.speed_bps, x.min_bw, x.line);
	lb_expect_for(&e, 1, NULL, NULL, &x);
	CHECK(x.speed_bps == 0 && x.mtu == 9000 && x.line == 2, "lane 1: speed %g line %u",
	      x.speed_bps, x.line);
	lb_expect_for(NULL, 1, "a", "b", &x);
	CHECK(x.line == 0 && x.mtu == 0 && x.lane == 1, "no file: line %u", x.line);

	/* `nic` also matches the port's netdev or RDMA device */
	struct lb_port_facts f = { .ifname = "ens1f1", .rdma_dev = "mlx5_1", .driver = "mlx5_core" };
	lb_expect_for_port(&e, 3, "rail1", &f, &x);
	CHECK(x.speed_bps == 200e9 && x.line == 5, "by RDMA device: speed %g line %u", x.speed_bps,
	      x.line);
	lb_expect_free(&e);
	CHECK(e.rules == NULL && e.n == 0, "freed");
}

static void load_bad(const char *path, const char *text, const char *want_tail)
{
	struct lb_expect e;
	char err[512] = "", want[512];
	write_file(path, text);
	snprintf(want, sizeof(want), "%s:%s", path, want_tail);
	int rc = lb_expect_load(path, &e, err, sizeof(err));
	CHECK(rc == LB_EINPUT && e.rules == NULL && e.n == 0, "%s: rc %d", want_tail, rc);
	CHECK(strcmp(err, want) == 0, "got \"%s\"\n  want \"%s\"", err, want);
}

/* text with NULs in it: n bytes */
static void load_bad_bytes(const char *path, const char *bytes, size_t n, const char *want_tail)
{
	struct lb_expect e;
	char err[512] = "", want[512];
	FILE *f = fopen(path, "w");
	CHECK(f && fwrite(bytes, 1, n, f) == n, "cannot write %s", path);
	if (f)
		fclose(f);
	snprintf(want, sizeof(want), "%s:%s", path, want_tail);
	int rc = lb_expect_load(path, &e, err, sizeof(err));
	CHECK(rc == LB_EINPUT && e.rules == NULL && e.n == 0, "%s: rc %d", want_tail, rc);
	CHECK(strcmp(err, want) == 0, "got \"%s\"\n  want \"%s\"", err, want);
}

#define LOAD_BAD_BYTES(path, lit, tail) load_bad_bytes(path, lit, sizeof(lit) - 1, tail)
#define NUL "a NUL byte: not a text file (UTF-16?)"

#define KEYS "(expected speed, mtu, pcie-width, pcie-speed, min-bw, max-lat, firmware)"

static void test_load_errors(const char *path)
{
	load_bad(path, "bogus mtu 9000\n",
		 "1: 'bogus': unknown selector (a line starts with one of all, lane N, nic NAME, driver NAME)");
	load_bad(path, "mtu 9000\n",
		 "1: 'mtu': unknown selector (a line starts with one of all, lane N, nic NAME, driver NAME)");
	load_bad(path, "# fine\nall mtu 9000\nall colour red\n", "3: 'colour': unknown key " KEYS);
	load_bad(path, "all mtu\n", "1: 'mtu': a key without a value");
	load_bad(path, "all mtu 9000 speed 10gbit mtu 1500\n", "1: 'mtu': given twice on one line");
	load_bad(path, "\n\nlane 0   # nothing\n", "3: 'lane': a selector without any key " KEYS);
	load_bad(path, "all\n", "1: 'all': a selector without any key " KEYS);
	load_bad(path, "lane\n",
		 "1: 'lane': a selector without its value (all, lane N, nic NAME, driver NAME)");
	load_bad(path, "lane x mtu 9000\n", "1: 'x': expected a lane number from 0 to 4095");
	load_bad(path, "nic abcdefghijabcdefghijabcdefghijab mtu 9000\n",
		 "1: 'abcdefghijabcdefghijabcdefghijab': too long (at most 31 characters)");
	/* what follows a NUL is not dropped unseen (it was: mtu 1500 taken alone) */
	LOAD_BAD_BYTES(path, "all mtu 1500\0 speed 10gbit\n", "1: '\\0': " NUL);
	LOAD_BAD_BYTES(path, "# UTF-16\na\0l\0l\0 \0m\0t\0u\0", "2: '\\0': " NUL);
	load_bad(path, "all mtu 40\n", "1: '40': expected an MTU in bytes from 68 to 65536");
	load_bad(path, "all mtu 9k\n", "1: '9k': expected an MTU in bytes from 68 to 65536");
	load_bad(path, "all speed 100gbps\n",
		 "1: '100gbps': expected a rate > 0 in bits (10gbit, 200mbit, 100kbit, 9600bit) or bytes per second (1.25GB/s, 125MB/s, 500B/s)");
	load_bad(path, "all speed 20tbit\n",
		 "1: '20tbit': out of range (expected 1kbit to 10tbit, 125B/s to 1.25TB/s)");
	load_bad(path, "all pcie-width 12\n",
		 "1: '12': expected a PCIe width of 1, 2, 4, 8, 16 or 32 lanes");
	load_bad(path, "all pcie-speed 7GT/s\n",
		 "1: '7GT/s': expected a PCIe speed of 2.5, 5, 8, 16, 32 or 64 GT/s (16 or 16GT/s)");
	load_bad(path, "all min-bw 90\n",
		 "1: '90': ambiguous: a bare number above 1 is a percentage or a multiple (write 90% or a fraction in (0, 1])");
	load_bad(path, "all min-bw 200%\n", "1: '200%': out of range: expected " FORMS);
	load_bad(path, "all min-bw lots\n",
		 "1: 'lots': expected " FORMS ", or a rate in bits (80gbit) or bytes per second (10GB/s)");
	load_bad(path, "all max-lat 0\n", "1: '0': expected a latency > 0 (5us, 1.5ms)");
	load_bad(path, "all max-lat 2h\n",
		 "1: '2h': expected seconds >= 0 with optional unit s, ms, us, ns (e.g. 5us, 1.5ms, 2s)");
	load_bad(path, "all firmware 0123456789012345678901234567890123456789012345678\n",
		 "1: '0123456789012345678901234567890123456789012345678': too long (at most 47 characters)");

	/* the accepted spellings of the same values */
	struct lb_expect e;
	char err[512] = "";
	write_file(path, "driver ice pcie-speed 2.5gt/s mtu 65536 min-bw 1 max-lat 1.5ms\n"
			 "lane 4095 pcie-speed 8 pcie-width 1 min-bw 12.5GB/s speed 1.25GB/s\n");
	int rc = lb_expect_load(path, &e, err, sizeof(err));
	CHECK(rc == 0 && e.n == 2, "spellings: rc %d: %s", rc, err);
	if (rc == 0 && e.n == 2) {
		CHECK(e.rules[0].pcie_gts == 2.5 && e.rules[0].mtu == 65536 && e.rules[0].min_bw == 1 &&
			      check_close(e.rules[0].max_lat, 1.5e-3, 1e-12), "rule 1");
		CHECK(e.rules[1].lane == 4095 && e.rules[1].pcie_gts == 8 && e.rules[1].pcie_width == 1 &&
			      e.rules[1].min_bw_bps == 12.5e9 && e.rules[1].speed_bps == 10e9,
		      "rule 2: speed %g", e.rules[1].speed_bps);
	}
	lb_expect_free(&e);

	char missing[300], want[400];
	snprintf(missing, sizeof(missing), "%s/none", dir);
	snprintf(want, sizeof(want), "cannot read expectations file '%s': No such file or directory",
		 missing);
	rc = lb_expect_load(missing, &e, err, sizeof(err));
	CHECK(rc == LB_EINPUT && strcmp(err, want) == 0, "missing: rc %d \"%s\"", rc, err);
	snprintf(want, sizeof(want), "cannot read expectations file '%s': Is a directory", dir);
	rc = lb_expect_load(dir, &e, err, sizeof(err));
	CHECK(rc == LB_EINPUT && strcmp(err, want) == 0, "a directory: rc %d \"%s\"", rc, err);
	/* /dev/zero has no line break: refused at 1 MiB (getline grew its
	 * buffer until memory ran out) */
	rc = lb_expect_load("/dev/zero", &e, err, sizeof(err));
	CHECK(rc == LB_EINPUT && strstr(err, "'/dev/zero': line 1: a line longer than 1 MiB"),
	      "/dev/zero: rc %d \"%s\"", rc, err);
}

/* ---- the inventory ---- */

#define MAXF 64

struct found {
	uint32_t n;
	struct {
		uint32_t rank, lane;
		enum lb_level level;
		char reason[512];
	} f[MAXF];
};

static void collect(void *ctx, uint32_t rank, uint32_t lane, enum lb_level level, const char *reason)
{
	struct found *s = ctx;
	CHECK(s->n < MAXF, "too many findings");
	if (s->n >= MAXF)
		return;
	s->f[s->n].rank = rank;
	s->f[s->n].lane = lane;
	s->f[s->n].level = level;
	snprintf(s->f[s->n].reason, sizeof(s->f[s->n].reason), "%s", reason);
	s->n++;
}

static struct lb_port_facts healthy(void)
{
	return (struct lb_port_facts){
		.state = "up", .carrier = 1, .mtu = 9000, .speed_bps = 100e9, .driver = "mlx5_core",
		.driver_version = "24.10", .firmware = "28.39", .pcie_width = 16, .pcie_max_width = 16,
		.pcie_gts = 16, .pcie_max_gts = 16, .rdma_dev = "mlx5_0", .rdma_state = "ACTIVE",
		.rdma_mtu = 4096,
	};
}

static struct lb_port_facts ports[64];

static void fill(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		ports[i] = healthy();
}

static struct found judge(uint32_t size, uint32_t lanes, const struct lb_expect *e)
{
	struct found s = { 0 };
	lb_judge_inventory(ports, NULL, size, lanes, e, collect, &s);
	return s;
}

/* Exactly one finding, this one. */
static void expect_one(const char *what, const struct found *s, uint32_t rank, uint32_t lane,
		       enum lb_level level, const char *reason)
{
	CHECK(s->n == 1, "%s: %u findings (want 1)", what, s->n);
	for (uint32_t i = 0; i < s->n; i++)
		CHECK(s->f[i].rank == rank && s->f[i].lane == lane && s->f[i].level == level &&
			      strcmp(s->f[i].reason, reason) == 0,
		      "%s: rank %u lane %u level %d \"%s\"\n  want rank %u lane %u level %d \"%s\"", what,
		      s->f[i].rank, s->f[i].lane, s->f[i].level, s->f[i].reason, rank, lane, level, reason);
}

static void test_majority(void)
{
	struct found s;
	fill(32);
	s = judge(16, 2, NULL);
	CHECK(s.n == 0, "all alike: %u findings (first \"%s\")", s.n, s.n ? s.f[0].reason : "");

	ports[5 * 2 + 0].mtu = 1500; /* rank 5, lane 0 */
	s = judge(16, 2, NULL);
	expect_one("one MTU", &s, 5, 0, LB_FAIL, "MTU 1500, the lane's other 15 ports 9000");

	fill(32);
	ports[3 * 2 + 1].speed_bps = 50e9; /* rank 3, lane 1 */
	s = judge(8, 2, NULL);
	expect_one("one speed", &s, 3, 1, LB_FAIL, "speed 50 Gbit/s, the lane's other 7 ports 100 Gbit/s");

	fill(8);
	ports[2].mtu = 1500;
	ports[3].mtu = 4000;
	s = judge(8, 1, NULL);
	CHECK(s.n == 2, "two odd: %u", s.n);
	if (s.n == 2) {
		CHECK(strcmp(s.f[0].reason, "MTU 1500, 6 of the lane's other 7 ports 9000") == 0 &&
			      s.f[0].rank == 2, "\"%s\"", s.f[0].reason);
		CHECK(strcmp(s.f[1].reason, "MTU 4000, 6 of the lane's other 7 ports 9000") == 0 &&
			      s.f[1].rank == 3, "\"%s\"", s.f[1].reason);
	}

	fill(4);
	ports[0].mtu = ports[2].mtu = 1500;
	s = judge(4, 1, NULL);
	expect_one("split", &s, LB_FINDING_LANE, 0, LB_WARN,
		   "lane 0: no majority MTU among 4 ports (2 x 1500, 2 x 9000)");

	fill(4);
	ports[1].mtu = 1500;
	s = judge(2, 2, NULL); /* rank 0 lane 1 (index 1) differs from rank 1 lane 1 */
	expect_one("two ports", &s, LB_FINDING_LANE, 1, LB_WARN,
		   "lane 1: no majority MTU among 2 ports (1 x 1500, 1 x 9000)");
}

static void test_unknown_ignored(void)
{
	struct found s;
	fill(6);
	ports[0].mtu = ports[1].mtu = 0; /* unknown */
	ports[5].mtu = 1500;
	s = judge(6, 1, NULL);
	expect_one("unknown ignored", &s, 5, 0, LB_FAIL, "MTU 1500, the lane's other 3 ports 9000");

	fill(4);
	ports[0].mtu = ports[1].mtu = 0;
	s = judge(4, 1, NULL);
	CHECK(s.n == 0, "two known, alike: %u findings", s.n);

	fill(6); /* 3 of 5 known is a majority; 3 of 6 is not */
	ports[0].speed_bps = 0;
	ports[1].speed_bps = ports[2].speed_bps = 50e9;
	s = judge(6, 1, NULL);
	CHECK(s.n == 2 && strcmp(s.f[0].reason, "speed 50 Gbit/s, 3 of the lane's other 4 ports 100 Gbit/s") == 0,
	      "3 of 5: %u \"%s\"", s.n, s.n ? s.f[0].reason : "");
	ports[0].speed_bps = 50e9;
	s = judge(6, 1, NULL);
	expect_one("3 of 6", &s, LB_FINDING_LANE, 0, LB_WARN,
		   "lane 0: no majority speed among 6 ports (3 x 100 Gbit/s, 3 x 50 Gbit/s)");
}

static void test_file_over_majority(const char *path)
{
	struct lb_expect e;
	char err[512], want[600];
	write_file(path, "# the rails\nall speed 100gbit\nlane 1 mtu 4000\n");
	CHECK(lb_expect_load(path, &e, err, sizeof(err)) == 0, "%s", err);
	fill(16);
	for (uint32_t r = 0; r < 8; r++)
		ports[r * 2].speed_bps = 50e9; /* lane 0: a majority at 50 */
	ports[2 * 2].speed_bps = 100e9;
	struct found s = judge(8, 2, &e);
	CHECK(s.n == 7 + 8, "file: %u findings (want 7 slow + 8 MTU)", s.n);
	snprintf(want, sizeof(want), "speed 50 Gbit/s, expected 100 Gbit/s (%s:2)", path);
	uint32_t slow = 0, mtu = 0;
	for (uint32_t i = 0; i < s.n; i++) {
		if (s.f[i].lane == 0)
			slow += s.f[i].rank != 2 && strcmp(s.f[i].reason, want) == 0 && s.f[i].level == LB_FAIL;
		else
			mtu += strstr(s.f[i].reason, "MTU 9000, expected 4000") != NULL;
	}
	CHECK(slow == 7 && mtu == 8, "slow %u (want 7: \"%s\"), mtu %u", slow, want, mtu);

	/* a split the file decides for every port: no warning for the lane */
	fill(4);
	ports[0].speed_bps = ports[1].speed_bps = 50e9;
	s = judge(4, 1, &e);
	CHECK(s.n == 2 && s.f[0].rank == 0 && s.f[1].rank == 1, "split by file: %u findings", s.n);

	/* `nic NAME` by the lane names given to -d */
	write_file(path, "nic rail1 mtu 1500\n");
	struct lb_expect byname;
	CHECK(lb_expect_load(path, &byname, err, sizeof(err)) == 0, "%s", err);
	fill(8);
	const char *const nics[] = { "rail0", "rail1", "rail0", "rail1", "rail0", "rail1", "rail0", "rail1" };
	s = (struct found){ 0 };
	lb_judge_inventory(ports, nics, 4, 2, &byname, collect, &s);
	snprintf(want, sizeof(want), "MTU 9000, expected 1500 (%s:1)", path);
	CHECK(s.n == 4 && s.f[0].lane == 1 && s.f[3].lane == 1 && strcmp(s.f[0].reason, want) == 0,
	      "by name: %u \"%s\"", s.n, s.n ? s.f[0].reason : "");
	lb_expect_free(&byname);

	/* the expected speed: the file, else the lane's majority, else none */
	fill(16);
	for (uint32_t r = 0; r < 8; r++)
		ports[r * 2].speed_bps = 50e9;
	const char *from;
	uint32_t line;
	double v = lb_expected_speed(ports, 8, 2, &e, NULL, 0, 0, &from, &line);
	CHECK(v == 100e9 && strcmp(from, "expect") == 0 && line == 2, "expect: %g %s %u", v, from, line);
	lb_expect_free(&e);
	v = lb_expected_speed(ports, 8, 2, NULL, NULL, 2, 0, &from, &line);
	CHECK(v == 50e9 && strcmp(from, "majority") == 0 && line == 0, "majority: %g %s", v, from);
	fill(16);
	ports[3 * 2].speed_bps = 25e9; /* the port's own is not what it should reach */
	v = lb_expected_speed(ports, 8, 2, NULL, NULL, 3, 0, &from, &line);
	CHECK(v == 100e9 && strcmp(from, "majority") == 0, "degraded port: %g %s", v, from);
	v = lb_expected_speed(ports, 2, 2, NULL, NULL, 0, 0, &from, NULL);
	CHECK(v == 0 && strcmp(from, "none") == 0, "two ranks: %g %s", v, from);
}

static void test_pcie(void)
{
	struct found s;
	fill(8);
	ports[1].pcie_width = 8;
	s = judge(8, 1, NULL);
	expect_one("width", &s, 1, 0, LB_FAIL, "PCIe x8 (device x16)");

	fill(8);
	ports[2].pcie_gts = 8;
	s = judge(8, 1, NULL);
	expect_one("speed", &s, 2, 0, LB_FAIL, "PCIe 8 GT/s (device 16 GT/s)");

	fill(8); /* an x8 card at x8 among x16 ones: fine for itself, odd in its lane */
	ports[4].pcie_width = ports[4].pcie_max_width = 8;
	s = judge(8, 1, NULL);
	expect_one("x8 card", &s, 4, 0, LB_FAIL, "PCIe x8, the lane's other 7 ports x16");

	fill(4); /* below its device with no majority to compare */
	ports[0].pcie_width = 4;
	s = judge(2, 1, NULL);
	CHECK(s.n == 2 && strcmp(s.f[0].reason, "PCIe x4 (device x16)") == 0 &&
		      s.f[1].rank == LB_FINDING_LANE,
	      "two ranks: %u \"%s\"", s.n, s.n ? s.f[0].reason : "");
}

static void test_firmware(const char *path)
{
	struct found s;
	fill(8);
	snprintf(ports[6].firmware, sizeof(ports[6].firmware), "28.1");
	s = judge(8, 1, NULL);
	expect_one("firmware", &s, 6, 0, LB_WARN, "firmware 28.1, the lane's other 7 ports 28.39");

	struct lb_expect e;
	char err[512], want[600];
	write_file(path, "all firmware 28.39\n");
	CHECK(lb_expect_load(path, &e, err, sizeof(err)) == 0, "%s", err);
	s = judge(8, 1, &e);
	snprintf(want, sizeof(want), "firmware 28.1, expected 28.39 (%s:1)", path);
	expect_one("firmware file", &s, 6, 0, LB_FAIL, want);
	lb_expect_free(&e);

	fill(8);
	snprintf(ports[0].driver_version, sizeof(ports[0].driver_version), "5.8");
	s = judge(8, 1, NULL);
	expect_one("driver version", &s, 0, 0, LB_WARN, "driver version 5.8, the lane's other 7 ports 24.10");

	/* a reason is never cut: two 47-character versions */
	fill(8);
	for (uint32_t r = 0; r < 8; r++)
		memset(ports[r].firmware, r == 7 ? 'b' : 'a', sizeof(ports[r].firmware) - 1);
	s = judge(8, 1, NULL);
	CHECK(s.n == 1 && strlen(s.f[0].reason) == strlen("firmware , the lane's other 7 ports ") + 2 * 47,
	      "long: %u \"%s\"", s.n, s.n ? s.f[0].reason : "");
	/* facts from another rank are bytes: a firmware without its terminator */
	memset(ports[7].firmware, 'c', sizeof(ports[7].firmware));
	s = judge(8, 1, NULL);
	CHECK(s.n == 1 && strlen(s.f[0].reason) == strlen("firmware , the lane's other 7 ports ") + 48 + 47,
	      "unterminated: %u \"%s\"", s.n, s.n ? s.f[0].reason : "");
}

static void test_link(void)
{
	struct found s;
	fill(8);
	snprintf(ports[3].state, sizeof(ports[3].state), "down");
	ports[3].carrier = 0;
	s = judge(8, 1, NULL);
	expect_one("down", &s, 3, 0, LB_FAIL, "link down (operstate down, no carrier)");

	fill(8);
	ports[3].carrier = 0;
	s = judge(8, 1, NULL);
	expect_one("no carrier", &s, 3, 0, LB_FAIL, "link down (no carrier)");

	fill(8);
	snprintf(ports[3].state, sizeof(ports[3].state), "lowerlayerdown");
	ports[3].carrier = -1;
	s = judge(8, 1, NULL);
	expect_one("lowerlayerdown", &s, 3, 0, LB_FAIL, "link down (operstate lowerlayerdown)");

	fill(8); /* loopback says "unknown", veth says nothing: no fault */
	snprintf(ports[1].state, sizeof(ports[1].state), "unknown");
	ports[2].state[0] = '\0';
	ports[1].carrier = ports[2].carrier = -1;
	s = judge(8, 1, NULL);
	CHECK(s.n == 0, "unknown state: %u findings", s.n);

	fill(8);
	snprintf(ports[4].rdma_state, sizeof(ports[4].rdma_state), "DOWN");
	snprintf(ports[5].rdma_state, sizeof(ports[5].rdma_state), "4: ACTIVE");
	ports[6].rdma_state[0] = '\0';
	s = judge(8, 1, NULL);
	expect_one("RDMA", &s, 4, 0, LB_FAIL, "RDMA port DOWN");
	snprintf(ports[4].rdma_state, sizeof(ports[4].rdma_state), "2: INIT");
	s = judge(8, 1, NULL);
	expect_one("RDMA sysfs", &s, 4, 0, LB_FAIL, "RDMA port INIT");
}

/* ---- measured figures ---- */

static double pop[32];

static struct lb_robust degraded(uint32_t n, uint32_t slow)
{
	for (uint32_t i = 0; i < n; i++)
		pop[i] = i < slow ? 50 : 100;
	return lb_robust_of(pop, n);
}

static void test_robust(void)
{
	const double v[] = { 1, 2, 3, 4, 100 };
	struct lb_robust r = lb_robust_of(v, 5);
	CHECK(r.n == 5 && r.median == 3 && r.mad == 1, "median %g mad %g", r.median, r.mad);
	const double w[] = { 1, NAN, 3, INFINITY };
	r = lb_robust_of(w, 4);
	CHECK(r.n == 2 && r.median == 2 && r.mad == 1, "finite only: n %u median %g", r.n, r.median);
	r = lb_robust_of(w, 0);
	CHECK(r.n == 0 && r.median == 0, "none");

	r = degraded(16, 7); /* 9 healthy: the median is healthy */
	CHECK(r.median == 100 && r.mad == 0, "7 of 16: median %g mad %g", r.median, r.mad);
	CHECK(lb_robust_judge(&r, 50, 0.9, 0) == LB_FAIL, "7 of 16: the slow fail");
	CHECK(lb_robust_judge(&r, 100, 0.9, 0) == LB_PASS, "7 of 16: the healthy pass");

	r = degraded(16, 8); /* half: the median between the groups */
	CHECK(r.median == 75 && r.mad == 25, "8 of 16: median %g mad %g", r.median, r.mad);
	CHECK(lb_robust_judge(&r, 50, 0.9, 0) == LB_WARN, "8 of 16: the slow are suspect");
	CHECK(lb_robust_judge(&r, 100, 0.9, 0) == LB_PASS, "8 of 16: the healthy pass");
	CHECK(lb_robust_judge(&r, 50, 0.9, 90) == LB_FAIL, "8 of 16 with an expectation: fail");

	r = degraded(16, 9); /* most degraded: only an expectation tells */
	CHECK(lb_robust_judge(&r, 50, 0.9, 0) == LB_PASS, "9 of 16: the median is the slow rate");
	CHECK(lb_robust_judge(&r, 50, 0.9, 90) == LB_FAIL, "9 of 16 with an expectation: fail");

	for (uint32_t i = 0; i < 16; i++) /* tight: 1 % off is noise, not a fault */
		pop[i] = 100 + (i % 2 ? 0.01 : -0.01);
	r = lb_robust_of(pop, 16);
	CHECK(lb_robust_judge(&r, 99, 0.9, 0) == LB_PASS, "tight: 1 %% off passes");
	CHECK(lb_robust_judge(&r, 80, 0.9, 0) == LB_FAIL, "tight: 20 %% off fails");

	for (uint32_t i = 0; i < 16; i++) /* wide: 85 to 115, MAD 8 */
		pop[i] = 85 + 2 * i;
	r = lb_robust_of(pop, 16);
	CHECK(r.median == 100 && r.mad == 8, "wide: median %g mad %g", r.median, r.mad);
	CHECK(lb_robust_judge(&r, 85, 0.9, 0) == LB_WARN, "wide: low but within the spread: warn");
	CHECK(lb_robust_judge(&r, 50, 0.9, 0) == LB_FAIL, "wide: half rate fails");

	r = degraded(4, 1); /* too few to tell */
	CHECK(lb_robust_judge(&r, 50, 0.9, 0) == LB_WARN, "4 ports: the slow one is suspect");
	CHECK(lb_robust_judge(&r, 100, 0.9, 0) == LB_PASS, "4 ports: the healthy pass");
	CHECK(lb_robust_judge(&r, 100, 0.9, 120) == LB_FAIL, "below the floor whatever the rest");
	CHECK(lb_robust_judge(&r, NAN, 0.9, 0) == LB_ERROR, "nothing measured");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char path[256];
	snprintf(path, sizeof(path), "%s/check.expect", dir);
	test_fraction();
	test_load_example(path);
	test_load_errors(path);
	test_majority();
	test_unknown_ignored();
	test_file_over_majority(path);
	test_pcie();
	test_firmware(path);
	test_link();
	test_robust();
	unlink(path);
	rmdir(dir);
	return check_status("check-expect");
}
