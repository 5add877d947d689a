/* Burn-in's judgement of one port's series (engine/check_burnin.h): the
 * minimum, maximum and spread over the intervals, a port named with the
 * intervals it fell below --min-bw in, a port slow throughout told apart
 * from one that flaps, a spread above --max-spread a warning, an interval
 * without traffic counted as none. */
#include <math.h>
#include <string.h>

#include "../check.h"
#include "engine/check_burnin.h"

#define E 12.5e6 /* bytes/s expected: 100 Mbit/s */

static const struct lb_burnin_limits lim = { .tx = E, .rx = E, .min_bw = 0.7, .max_spread = 0.2 };

static void steady(void)
{
	const double tx[] = { 0.95 * E, 0.94 * E, 0.96 * E }, rx[] = { 0.95 * E, 0.95 * E, 0.93 * E };
	struct lb_burnin_port s;
	char why[512];
	lb_burnin_summarise(tx, rx, 3, &s);
	CHECK(s.intervals == 3, "intervals %u", s.intervals);
	CHECK(s.min_tx == 0.94 * E && s.max_tx == 0.96 * E, "tx %g..%g", s.min_tx, s.max_tx);
	CHECK(s.min_rx == 0.93 * E && s.max_rx == 0.95 * E, "rx %g..%g", s.min_rx, s.max_rx);
	/* the larger spread: rx's (0.95 - 0.93) / 0.95 */
	CHECK(check_close(s.spread, 0.02 / 0.95, 1e-12), "spread %g", s.spread);
	CHECK(lb_burnin_judge(tx, rx, 3, &lim, why, sizeof(why)) == LB_PASS, "steady: %s", why);
	CHECK(why[0] == '\0', "a pass has no reason: '%s'", why);
}

/* Interval 3 of 4 at 41 %: the port fails, that interval named, the cause. */
static void flapping(void)
{
	const double tx[] = { 0.95 * E, 0.95 * E, 0.41 * E, 0.95 * E }, rx[] = { E, E, E, E };
	char why[512];
	enum lb_level l = lb_burnin_judge(tx, rx, 4, &lim, why, sizeof(why));
	CHECK(l == LB_FAIL, "flapping: level %d", l);
	CHECK(strstr(why, "interval 3 of 4: tx at 41 % of expected") != NULL, "reason: %s", why);
	CHECK(strstr(why, "interval 1") == NULL && strstr(why, "interval 4") == NULL,
	      "only interval 3 named: %s", why);
	CHECK(strstr(why, "flapping link or a port that degrades warm") != NULL, "cause: %s", why);
}

/* No traffic in an interval (its pairs failed: NaN) is 0: named as such. */
static void silent_interval(void)
{
	const double tx[] = { E, NAN, E }, rx[] = { E, NAN, E };
	struct lb_burnin_port s;
	char why[512];
	lb_burnin_summarise(tx, rx, 3, &s);
	CHECK(s.min_tx == 0 && s.min_rx == 0 && s.spread == 1, "min %g %g spread %g", s.min_tx,
	      s.min_rx, s.spread);
	CHECK(lb_burnin_judge(tx, rx, 3, &lim, why, sizeof(why)) == LB_FAIL, "silent: %s", why);
	CHECK(strstr(why, "interval 2 of 3: no traffic") != NULL, "reason: %s", why);
}

/* Below in every interval: slow, not intermittent; the lowest named. */
static void slow_throughout(void)
{
	const double tx[] = { 0.5 * E, 0.45 * E }, rx[] = { 0.9 * E, 0.9 * E };
	char why[512];
	CHECK(lb_burnin_judge(tx, rx, 2, &lim, why, sizeof(why)) == LB_FAIL, "slow: %s", why);
	CHECK(strstr(why, "every one of 2 intervals") != NULL &&
	      strstr(why, "interval 2, tx at 45 %") != NULL && strstr(why, "not intermittent"),
	      "reason: %s", why);
}

/* Within --min-bw every time, but 75 % to 100 %: a warning, figures said. */
static void unsteady(void)
{
	const double tx[] = { E, 0.75 * E, E }, rx[] = { E, E, E };
	char why[512];
	CHECK(lb_burnin_judge(tx, rx, 3, &lim, why, sizeof(why)) == LB_WARN, "unsteady: %s", why);
	CHECK(strstr(why, "varied by 25 % over 3 intervals") != NULL &&
	      strstr(why, "tx 75 to 100 Mbit/s") != NULL && strstr(why, "max 20 %"),
	      "reason: %s", why);
}

/* Nothing says what to expect (NaN): only the spread is judged. */
static void unknown_expected(void)
{
	const struct lb_burnin_limits none = { .tx = NAN, .rx = NAN, .min_bw = 0.7, .max_spread = 0.2 };
	const double tx[] = { E, 0.1 * E }, rx[] = { E, E };
	char why[512];
	CHECK(lb_burnin_judge(tx, rx, 2, &none, why, sizeof(why)) == LB_WARN, "unknown: %s", why);
}

/* Many intervals below: eight named, the rest counted; the buffer holds. */
static void many(void)
{
	double tx[40], rx[40];
	char why[160];
	for (int i = 0; i < 40; i++)
		tx[i] = rx[i] = i % 2 ? 0.3 * E : E;
	CHECK(lb_burnin_judge(tx, rx, 40, &lim, why, sizeof(why)) == LB_FAIL, "many");
	CHECK(strlen(why) < sizeof(why), "cut to the buffer");
	char big[1024];
	lb_burnin_judge(tx, rx, 40, &lim, big, sizeof(big));
	CHECK(strstr(big, "interval 16 of 40") != NULL && strstr(big, "interval 18 of 40") == NULL &&
	      strstr(big, "; 12 more") != NULL, "listed: %s", big);
}

int main(void)
{
	steady();
	flapping();
	silent_interval();
	slow_throughout();
	unsteady();
	unknown_expected();
	many();
	return check_status("test_check_burnin");
}
