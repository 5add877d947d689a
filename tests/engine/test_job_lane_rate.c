/* The slowest lane rate (engine/job.c), which the efficiency column
 * divides by: every lane counts, not only the first, and one unknown
 * lane makes the minimum unknown. */
#include "check.h"
#include "engine/job.h"

#define G (1e9 / 8) /* 1 Gbit/s in bytes/s */

static void expect(const double *rates, size_t n, double want, const char *what)
{
	double got = lb_slowest_rate(rates, n);
	CHECK(got == want, "%s: got %g, want %g", what, got, want);
}

int main(void)
{
	expect((const double[]){ 100 * G, 25 * G }, 2, 25 * G, "{100G, 25G}");
	expect((const double[]){ 25 * G, 100 * G }, 2, 25 * G, "{25G, 100G}");
	expect((const double[]){ 100 * G, 100 * G, 10 * G, 40 * G }, 4, 10 * G, "slowest third of four");
	expect((const double[]){ 40 * G }, 1, 40 * G, "one lane");
	expect((const double[]){ 100 * G, 0 }, 2, 0, "second lane unknown");
	expect((const double[]){ 0, 100 * G }, 2, 0, "first lane unknown");
	expect((const double[]){ 100 * G, NAN }, 2, 0, "NaN is unknown");
	expect(NULL, 0, 0, "no lanes");
	return check_status("lane-rate");
}
