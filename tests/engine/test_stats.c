#include "check.h"
#include "engine/pattern.h"
#include "engine/stats.h"

#include <stdlib.h>

int main(void)
{
	struct lb_stats st;
	double one[] = { 4.0 };
	lb_stats_compute(one, 1, &st);
	CHECK(st.n == 1 && st.min == 4 && st.median == 4 && st.mean == 4 && st.p99 == 4 && st.max == 4,
	      "one sample");
	double even[] = { 5, 1, 4, 2 };
	lb_stats_compute(even, 4, &st);
	CHECK(st.min == 1 && st.max == 5 && st.median == 3 && st.mean == 3 && st.p99 == 5,
	      "even: median %g p99 %g", st.median, st.p99);
	CHECK(even[0] == 5, "input left unsorted");
	double many[200];
	for (int i = 0; i < 200; i++)
		many[i] = 199 - i; /* 0..199 */
	lb_stats_compute(many, 200, &st);
	CHECK(st.p99 == 197 && st.median == 99.5, "200 samples: p99 %g (nearest rank 198th) median %g",
	      st.p99, st.median);
	lb_stats_compute(many, 0, &st);
	CHECK(st.n == 0 && st.max == 0, "no samples");

	/* The pattern differs per iteration and catches a single wrong byte. */
	uint8_t a[1003], b[1003];
	uint64_t bad = 0;
	lb_pattern_fill(a, sizeof(a), 7);
	lb_pattern_fill(b, sizeof(b), 8);
	CHECK(memcmp(a, b, sizeof(a)) != 0, "iterations differ");
	CHECK(lb_pattern_check(a, sizeof(a), 7, &bad) == 0, "own pattern passes");
	a[1001] ^= 1;
	CHECK(lb_pattern_check(a, sizeof(a), 7, &bad) != 0 && bad == 1001, "flip found at %llu",
	      (unsigned long long)bad);
	CHECK(lb_pattern_check(b, sizeof(b), 7, &bad) != 0 && bad < 8, "stale iteration caught");
	return check_status("stats-pattern");
}
