/* engine/calibpairs: the tournament's rounds (every unordered pair meets
 * once, no rank twice in a round, partners agree), the --pairs all limit,
 * and the figures as a platform whose text parses back to the same links. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/calibpairs.h"

static void check_tournament(uint32_t size)
{
	uint32_t rounds = lb_calib_pairs_rounds(size);
	unsigned *met = calloc((size_t)size * size + 1, sizeof(*met));
	CHECK(rounds == (size < 2 ? 0 : size % 2 ? size : size - 1), "size %u: %u rounds", size, rounds);
	for (uint32_t r = 0; r < rounds; r++) {
		uint32_t busy = 0;
		for (uint32_t u = 0; u < size; u++) {
			int v = lb_calib_pairs_partner(u, size, r);
			if (v < 0)
				continue;
			busy++;
			CHECK((uint32_t)v < size && (uint32_t)v != u, "size %u round %u: %u -> %d", size, r, u, v);
			CHECK(lb_calib_pairs_partner((uint32_t)v, size, r) == (int)u,
			      "size %u round %u: %u meets %d, who meets another", size, r, u, v);
			met[u * size + (uint32_t)v]++;
		}
		CHECK(busy == size - size % 2, "size %u round %u: %u ranks busy", size, r, busy);
	}
	for (uint32_t u = 0; u < size; u++)
		for (uint32_t v = 0; v < size; v++)
			CHECK(met[u * size + v] == (u != v), "size %u: %u met %u %u times", size, u, v,
			      met[u * size + v]);
	free(met);
}

static void check_limit(void)
{
	char err[512] = "";
	CHECK(lb_calib_pairs_check(32, err, sizeof(err)) == 0, "32 ranks refused: %s", err);
	CHECK(lb_calib_pairs_check(33, err, sizeof(err)) != 0, "33 ranks accepted");
	CHECK(strstr(err, "33 ranks") && strstr(err, "above 32") && strstr(err, "at most 32"),
	      "the refusal names the size, the limit and what to do: %s", err);
}

/* The figures as calibrate writes them (*text, malloc'd), parsed back. */
static struct lb_platform *written_and_read(const struct lb_calib_pairs *c, char **text)
{
	struct lb_platform *pf = lb_calib_pairs_platform(c);
	char err[256] = "";
	*text = pf ? lb_platform_format(pf) : NULL;
	struct lb_platform *back = *text ? lb_platform_parse(*text, "calib", err, sizeof(err)) : NULL;
	CHECK(back, "parse back: %s", err);
	lb_platform_free(pf);
	return back;
}

/* 3 ranks, 2 lanes of made-up figures: formatted, parsed back, compared. */
static void check_platform(void)
{
	enum { P = 3, K = 2 };
	double lat[K * P * P], bw[K * P * P];
	for (size_t i = 0; i < K * P * P; i++)
		lat[i] = 1e-5 * (double)(i + 1), bw[i] = 1e8 / 3.0 * (double)(i + 1);
	struct lb_calib_pairs c = { .ranks = P, .lanes = K, .latency = lat, .bandwidth = bw };
	char *text = NULL;
	struct lb_platform *back = written_and_read(&c, &text);
	CHECK(text && strstr(text, "default none\n"), "no default link: %s", text ? text : "");
	for (uint32_t l = 0; back && l < K; l++)
		for (uint32_t u = 0; u < P; u++)
			for (uint32_t v = 0; v < P; v++) {
				if (u == v)
					continue;
				size_t at = ((size_t)l * P + u) * P + v;
				struct lb_link got = lb_platform_link(back, u, v, l);
				CHECK(got.lat == lat[at] && got.bw == bw[at] && got.occ == 0,
				      "lane %u %u -> %u: lat %g bw %g occ %g", l, u, v, got.lat, got.bw, got.occ);
			}
	free(text);
	lb_platform_free(back);
}

/* A pair with no link (bandwidth and latency 0: it did not connect or
 * answer) is written "nolink U V lane L oneway", both directions, and
 * reads back as no link; the pair's other lane keeps its figures. */
static void check_nolink(void)
{
	enum { P = 3, K = 2 };
	double lat[K * P * P], bw[K * P * P];
	for (size_t i = 0; i < K * P * P; i++)
		lat[i] = 1e-5, bw[i] = 1e8;
	size_t cut[] = { (1 * P + 1) * P + 2, (1 * P + 2) * P + 1 }; /* lane 1: 1 -> 2, 2 -> 1 */
	for (size_t i = 0; i < 2; i++)
		lat[cut[i]] = bw[cut[i]] = 0;
	struct lb_calib_pairs c = { .ranks = P, .lanes = K, .latency = lat, .bandwidth = bw };
	char *text = NULL;
	struct lb_platform *back = written_and_read(&c, &text);
	CHECK(text && strstr(text, "\nnolink 1 2 lane 1 oneway\n") &&
	      strstr(text, "\nnolink 2 1 lane 1 oneway\n"), "nolink lines: %s", text ? text : "");
	CHECK(back && !lb_platform_has_link(back, 1, 2, 1) && !lb_platform_has_link(back, 2, 1, 1) &&
	      lb_platform_link(back, 1, 2, 0).bw == 1e8, "lane 1 of {1, 2} cut, lane 0 kept");
	free(text);
	lb_platform_free(back);
}

int main(void)
{
	for (uint32_t size = 1; size <= 33; size++)
		check_tournament(size);
	check_limit();
	check_platform();
	check_nolink();
	return check_status("test_calib_pairs");
}
