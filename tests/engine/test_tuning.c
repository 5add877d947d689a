/* The tuning table (engine/tuning.h): a good file reads back as written;
 * crafted and broken ones are refused naming the line and the field; the
 * key matches only the job it names; a size takes its nearest class.  And
 * -a auto's model ranking (model/algo_rank.h) is ordered and buildable. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "algos/slice.h"
#include "engine/tuning.h"
#include "model/algo_rank.h"

static char dir[] = "/tmp/lb-tuning-XXXXXX";
static char path[64];

#define HEAD "lanebench-tuning 1\n# version: test\n"
#define KEY "key transport=tcp ranks=8 lanes=2 lane_rate=25000000 platform=-\n"

static void put(const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL, "%s", path);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* text is refused, the message naming `needle`. */
static void refused(const char *text, const char *needle)
{
	struct lb_tuning t;
	char err[512] = "";
	put(text);
	CHECK(lb_tuning_read(path, &t, err, sizeof(err)) == -1, "accepted: %s", text);
	CHECK(strstr(err, needle) != NULL, "'%s' lacks '%s'", err, needle);
}

static void good_file(void)
{
	struct lb_tuning t, back;
	char err[512] = "";
	put(HEAD KEY "pick 8 binomial 8 1e-05\npick 65536 chain 32768 0.000293\n"
		     "pick 4194304 multilane 131072 0.02\n");
	CHECK(lb_tuning_read(path, &t, err, sizeof(err)) == 0, "%s", err);
	CHECK(t.n == 3 && t.key.ranks == 8 && t.key.lanes == 2, "%zu picks", t.n);
	CHECK(t.n == 3 && strcmp(t.picks[1].algo->name, "chain") == 0 && t.picks[1].slice == 32768,
	      "the 64K pick");
	FILE *f = fopen(path, "w");
	struct lb_prov prov = { 0 };
	lb_prov_add(&prov, "version", "%s", "x");
	CHECK(f && lb_tuning_write(f, &t, &prov) == 0, "write");
	if (f)
		fclose(f);
	lb_prov_free(&prov);
	CHECK(lb_tuning_read(path, &back, err, sizeof(err)) == 0, "written file: %s", err);
	CHECK(back.n == 3 && back.picks[2].seconds == 0.02 && back.key.lane_rate == 25e6,
	      "reads back as written");
}

static void crafted_files(void)
{
	refused("lanebench-tuning 2\n" KEY "pick 8 chain 8 1\n", ":1: not a tuning table");
	refused(HEAD "pick 8 chain 8 1\n", ":3: expected 'key");
	refused(HEAD KEY, "no pick lines");
	refused(HEAD "key transport=tcp ranks=0 lanes=2 lane_rate=1 platform=-\n", ":3:");
	refused(HEAD "key transport=t;rm ranks=2 lanes=2 lane_rate=1 platform=-\n", ":3:");
	refused(HEAD KEY "pick 8 lp-grow 8 1\n", "not a broadcast that needs no platform");
	refused(HEAD KEY "pick 8 allgather-ring 8 1\n", "not a broadcast");
	refused(HEAD KEY "pick 65536 chain 3000 1\n", "power of two");
	refused(HEAD KEY "pick 65536 chain 131072 1\n", "power of two");
	refused(HEAD KEY "pick 65536 chain 512 1\n", "power of two");
	refused(HEAD KEY "pick 8 chain 8 nan\n", "seconds");
	refused(HEAD KEY "pick 8 chain 8 -1\n", "seconds");
	refused(HEAD KEY "pick 8 chain 8 1 extra\n", ":4: expected 'pick");
	refused(HEAD KEY "pick -8 chain 8 1\n", "whole numbers");
	refused(HEAD KEY "pick 99999999999999999999 chain 8 1\n", "whole numbers");
	refused(HEAD KEY "pick 64 chain 64 1\npick 8 chain 8 1\n", ":5: sizes must increase");
	char *longline = malloc(4096);
	if (longline) {
		memset(longline, 'x', 4095);
		longline[4095] = 0;
		char *text = malloc(8192);
		snprintf(text, 8192, HEAD KEY "# %s\n", longline);
		refused(text, "longer than 1024");
		free(text);
		free(longline);
	}
	struct lb_tuning t;
	char err[256];
	CHECK(lb_tuning_read("/nonexistent/x", &t, err, sizeof(err)) == -1, "a missing file");
}

static void key_and_lookup(void)
{
	struct lb_tuning t;
	char err[512] = "", why[256] = "";
	put(HEAD KEY "pick 8 binomial 8 1e-05\npick 65536 chain 32768 0.000293\n");
	CHECK(lb_tuning_read(path, &t, err, sizeof(err)) == 0, "%s", err);
	struct lb_tuning_key job = { "tcp", 8, 2, 25.1e6, "-" };
	CHECK(lb_tuning_matches(&t, &job, why, sizeof(why)) == 0, "within 1 %%: %s", why);
	job.ranks = 4;
	CHECK(lb_tuning_matches(&t, &job, why, sizeof(why)) == -1 && strstr(why, "ranks") &&
	      !strchr(why, ','), "ranks differ: %s", why);
	job.ranks = 8, job.lane_rate = 30e6;
	CHECK(lb_tuning_matches(&t, &job, why, sizeof(why)) == -1 && strstr(why, "lane rate"),
	      "rate differs: %s", why);
	job.lane_rate = 25e6, snprintf(job.transport, sizeof(job.transport), "dpdk");
	CHECK(lb_tuning_matches(&t, &job, why, sizeof(why)) == -1, "transport differs");
	uint64_t slice = 0;
	const struct lb_tuning_pick *p = lb_tuning_lookup(&t, 100000, &slice, why, sizeof(why));
	CHECK(p && p->bytes == 65536 && slice == 32768, "100000 B: the 64K class");
	p = lb_tuning_lookup(&t, 20000, &slice, why, sizeof(why));
	CHECK(p && p->bytes == 65536 && slice == 20000, "20000 B: a slice capped at the message");
	p = lb_tuning_lookup(&t, 16, &slice, why, sizeof(why));
	CHECK(p && p->bytes == 8 && slice == 16, "16 B: one slice stays one slice");
	CHECK(!lb_tuning_lookup(&t, 1 << 20, &slice, why, sizeof(why)) && strstr(why, "x4"),
	      "1 MiB: too far from 64K");
}

static void model_ranking(void)
{
	struct lb_algo_cand c[8];
	struct lb_algo_params p = { .ranks = 8, .lanes = 2, .bytes = 1 << 20,
				    .slice_bytes = LB_SLICE_AUTO, .sites = 1 };
	size_t n = lb_algo_rank(&p, 50e-6, 25e6, c, 8);
	CHECK(n == 6, "the six broadcasts: %zu", n);
	for (size_t i = 0; i < n; i++) {
		CHECK(lb_algo_homogeneous_bcast(c[i].algo), "%s", c[i].algo->name);
		CHECK(i == 0 || c[i].seconds >= c[i - 1].seconds, "ordered at %zu", i);
		CHECK(c[i].slice >= LB_SLICE_AUTO_FLOOR && c[i].slice <= p.bytes, "%s slice",
		      c[i].algo->name);
	}
	CHECK(lb_algo_rank(&p, 50e-6, 25e6, c, 2) == 2, "at most max");
	p.slice_bytes = 8192;
	n = lb_algo_rank(&p, 50e-6, 25e6, c, 8);
	CHECK(n >= 1 && c[0].slice == 8192, "a fixed slice stays");
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/t.txt", dir);
	good_file();
	crafted_files();
	key_and_lookup();
	model_ranking();
	unlink(path);
	rmdir(dir);
	return check_status("tuning");
}
