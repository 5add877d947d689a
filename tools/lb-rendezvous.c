/* lb-rendezvous: the bootstrap's rendezvous alone, timed -- no transport,
 * no data phase.  Every rank of a job (launched as lanebench's ranks are:
 * LANEBENCH_RANK, _SIZE, _COORD, _TOKEN, _TIMEOUT, or a launcher's
 * variables; launch/bootstrap.h) does
 *
 *     lb_boot_open, one lb_boot_allgather of a RECORD-byte record,
 *     lb_boot_agree on what it received,
 *
 * and rank 0 prints one line of key=value pairs on stdout:
 *
 *     ranks=1024 record=64 open_s=0.412 allgather_s=0.051 agree_s=0.010
 *     total_s=0.473 cpu0_s=0.210 cpu0_open_s=0.150 cpu0_allgather_s=0.050
 *     cpu0_agree_s=0.010 rss0_kib=3120 rss_median_kib=2950 rss_max_kib=3200
 *     late=0
 *
 * open_s, allgather_s, agree_s: rank 0's wall time of each step, total_s
 * their sum (from the start, --start-at); cpu0_s: rank 0's user + system
 * time over them, cpu0_<step>_s each step's share; rss*: peak resident
 * size (getrusage) of rank 0, the median and the largest rank; late:
 * ranks that began after the start (their launch was slower than the
 * script allowed: the time then holds their launch too).  Exit status 0
 * when every rank received every record right, else 1 with the reason on
 * stderr (2: bad arguments or environment).
 *
 *   lb-rendezvous [--record BYTES] [--start-at EPOCH_SECONDS]
 *
 * --start-at: every rank sleeps until then (CLOCK_REALTIME, one machine),
 * rank 0 LEAD seconds earlier so that it listens when the others connect
 * (a rank that finds no listener waits 100 ms to try again, which would
 * measure that retry, not the rendezvous).  Without it each rank starts
 * at once and rank 0's times count from its own start.
 *
 * Not part of lanebench's layers: a tool of scripts/bench-rendezvous and
 * tests/job/rendezvous_test.sh. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "launch/bootstrap.h"

#define LEAD       0.1      /* s: rank 0 starts this much before the others */
#define RECORD_MAX 4096u

struct sample {              /* what every rank tells rank 0 at the end */
	uint64_t rss_kib;
	uint32_t late;
	uint32_t pad;
};

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static uint64_t peak_rss_kib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)ru.ru_maxrss; /* Linux: KiB */
}

/* Sleeps until `at` (seconds since the epoch); 1 if that had passed. */
static int sleep_until(double at)
{
	struct timespec ts = { .tv_sec = (time_t)at,
			       .tv_nsec = (long)((at - (double)(time_t)at) * 1e9) };
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	if ((double)now.tv_sec + (double)now.tv_nsec * 1e-9 >= at)
		return 1;
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	return 0;
}

/* Rank r's record: bytes no other rank's record has at the same place. */
static void fill_record(uint8_t *rec, size_t len, uint32_t rank)
{
	uint32_t x = rank * 2654435761u + 1;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		rec[i] = (uint8_t)x;
	}
}

/* 0 when every rank's record arrived whole, in its place; else the first
 * wrong rank, said in why. */
static int check_records(const uint8_t *all, size_t len, uint32_t size, char *why, size_t wl)
{
	uint8_t *want = malloc(len ? len : 1);
	int rc = want ? 0 : snprintf(why, wl, "out of memory") > 0;
	for (uint32_t r = 0; rc == 0 && r < size; r++) {
		fill_record(want, len, r);
		if (memcmp(all + (size_t)r * len, want, len))
			rc = snprintf(why, wl, "the record of rank %u arrived wrong", r) > 0;
	}
	free(want);
	return rc;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Rank 0: the peak RSS of the median and the largest rank, ranks late. */
static void summarise(const struct sample *s, uint32_t size, uint64_t *median, uint64_t *max,
		      uint32_t *late)
{
	uint64_t *rss = malloc(size * sizeof(*rss));
	*median = *max = 0;
	*late = 0;
	for (uint32_t r = 0; r < size; r++)
		*late += s[r].late;
	if (!rss)
		return;
	for (uint32_t r = 0; r < size; r++)
		rss[r] = s[r].rss_kib;
	qsort(rss, size, sizeof(*rss), compare_u64);
	*median = rss[size / 2];
	*max = rss[size - 1];
	free(rss);
}

struct opts {
	size_t record;
	double start_at;     /* 0: none */
};

static int parse_args(int argc, char **argv, struct opts *o)
{
	o->record = 64;
	o->start_at = 0;
	for (int i = 1; i < argc; i++) {
		char *end = NULL;
		if (strcmp(argv[i], "--record") == 0 && i + 1 < argc) {
			unsigned long v = strtoul(argv[++i], &end, 10);
			if (*end || v < 1 || v > RECORD_MAX)
				return fprintf(stderr, "lb-rendezvous: --record '%s': 1..%u bytes\n",
					       argv[i], RECORD_MAX), -1;
			o->record = v;
		} else if (strcmp(argv[i], "--start-at") == 0 && i + 1 < argc) {
			o->start_at = strtod(argv[++i], &end);
			if (*end || !(o->start_at > 0))
				return fprintf(stderr, "lb-rendezvous: --start-at '%s': seconds since "
					       "the epoch\n", argv[i]), -1;
		} else {
			return fprintf(stderr, "usage: lb-rendezvous [--record BYTES] "
				       "[--start-at EPOCH_SECONDS]\n"), -1;
		}
	}
	return 0;
}

struct times {
	double open, allgather, agree;   /* wall seconds */
	double cpu_open, cpu_allgather, cpu_agree;
};

/* The measured part: open, allgather, agree.  0, or 1 (err says why). */
static int rendezvous(const struct lb_boot_cfg *cfg, size_t len, struct lb_boot **b,
		      struct times *t, char *err, size_t errlen)
{
	uint8_t *mine = malloc(len), *all = malloc(len * cfg->size);
	double t0 = mono_now(), c0 = cpu_now();
	char why[256] = "";
	int rc = mine && all ? 0 : snprintf(err, errlen, "out of memory") > 0;
	if (rc == 0)
		rc = lb_boot_open(cfg, b, err, errlen) != 0;
	double t1 = mono_now(), cpu_open = cpu_now() - c0;
	if (rc == 0) {
		fill_record(mine, len, cfg->rank);
		rc = lb_boot_allgather(*b, mine, len, all, err, errlen) != 0;
	}
	double t2 = mono_now(), cpu_allgather = cpu_now() - c0 - cpu_open;
	if (rc == 0) {
		int ok = check_records(all, len, cfg->size, why, sizeof(why)) == 0;
		rc = lb_boot_agree(*b, ok, why, err, errlen) != 0;
	}
	*t = (struct times){ .open = t1 - t0, .allgather = t2 - t1, .agree = mono_now() - t2,
			     .cpu_open = cpu_open, .cpu_allgather = cpu_allgather,
			     .cpu_agree = cpu_now() - c0 - cpu_open - cpu_allgather };
	free(mine);
	free(all);
	return rc;
}

static void report(uint32_t size, size_t record, const struct times *t,
		   const struct sample *s)
{
	uint64_t median, max;
	uint32_t late;
	summarise(s, size, &median, &max, &late);
	printf("ranks=%u record=%zu open_s=%.4f allgather_s=%.4f agree_s=%.4f total_s=%.4f "
	       "cpu0_s=%.4f cpu0_open_s=%.4f cpu0_allgather_s=%.4f cpu0_agree_s=%.4f "
	       "rss0_kib=%llu rss_median_kib=%llu rss_max_kib=%llu late=%u\n", size, record,
	       t->open, t->allgather, t->agree, t->open + t->allgather + t->agree,
	       t->cpu_open + t->cpu_allgather + t->cpu_agree, t->cpu_open, t->cpu_allgather,
	       t->cpu_agree,
	       (unsigned long long)s[0].rss_kib, (unsigned long long)median,
	       (unsigned long long)max, late);
}

int main(int argc, char **argv)
{
	struct lb_boot_cfg cfg;
	struct lb_boot *b = NULL;
	struct opts o;
	struct times t;
	char err[512];
	if (parse_args(argc, argv, &o))
		return 2;
	if (lb_boot_env(&cfg, err, sizeof(err)))
		return fprintf(stderr, "lb-rendezvous: %s\n", err), 2;
	struct sample mine = { 0 };
	if (o.start_at > 0)
		mine.late = (uint32_t)sleep_until(cfg.rank == 0 ? o.start_at - LEAD : o.start_at);
	int rc = rendezvous(&cfg, o.record, &b, &t, err, sizeof(err));
	if (rc == 0 && cfg.rank == 0 && o.start_at > 0)
		t.open -= LEAD; /* from the others' start */
	struct sample *all = cfg.rank == 0 ? calloc(cfg.size, sizeof(*all)) : NULL;
	mine.rss_kib = peak_rss_kib();
	if (rc == 0 && cfg.rank == 0 && !all)
		rc = snprintf(err, sizeof(err), "out of memory") > 0;
	if (rc == 0)
		rc = lb_boot_gather(b, &mine, sizeof(mine), all, err, sizeof(err)) != 0;
	if (rc == 0 && cfg.rank == 0)
		report(cfg.size, o.record, &t, all);
	if (rc)
		fprintf(stderr, "lb-rendezvous: rank %u: %s\n", cfg.rank, err);
	free(all);
	lb_boot_close(b);
	return rc ? 1 : 0;
}
