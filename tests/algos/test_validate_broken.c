/* The validator rejects hand-made broken schedules and says what is wrong. */
#include <stdlib.h>

#include "algos/algos.h"
#include "check.h"
#include "verdict.h"

/* 3 ranks, 1 lane, 2 blocks, root 0: a correct chain 0 -> 1 -> 2. */
static struct lb_schedule *chain3(uint32_t lanes)
{
	struct lb_schedule *s = lb_sched_new("hand", 3, 0, lanes, 2, 2000);
	for (uint32_t b = 0; b < 2; b++) {
		lb_sched_transfer(s, 0, 1, 0, b, 1);
		lb_sched_transfer(s, 1, 2, 0, b, 1);
	}
	return s;
}

int main(void)
{
	expect(chain3(1), "correct chain", NULL);

	struct lb_schedule *s = lb_sched_new("hand", 3, 0, 1, 2, 2000);
	lb_sched_transfer(s, 0, 1, 0, 0, 2);
	lb_sched_transfer(s, 1, 2, 0, 0, 1); /* block 1 never reaches rank 2 */
	expect(s, "missing block", "rank 2 never receives block 1");

	s = chain3(1);
	lb_sched_transfer(s, 0, 2, 0, 1, 1); /* rank 2 gets block 1 twice */
	expect(s, "duplicate", "rank 2 receives block 1 2 times");

	s = lb_sched_new("hand", 3, 0, 2, 1, 1000);
	lb_sched_add(s, 0, LB_SEND, 1, 0, 0, 1);
	lb_sched_add(s, 1, LB_RECV, 0, 1, 0, 1); /* expects it on lane 1 */
	lb_sched_transfer(s, 1, 2, 0, 0, 1);
	expect(s, "lane mismatch", "lane mismatch: rank 0 sends blocks [0,1) to rank 1 on lane 0 but rank 1 receives them on lane 1");

	/* Rank 1 first sends block 1, which only rank 2's second SEND gives
	 * it; rank 2 first sends block 0, which only rank 1's second SEND
	 * gives it: a cycle, though every block is received exactly once. */
	s = lb_sched_new("hand", 4, 0, 1, 2, 2000);
	lb_sched_transfer(s, 0, 1, 0, 0, 1);
	lb_sched_transfer(s, 0, 2, 0, 1, 1);
	lb_sched_transfer(s, 1, 3, 0, 1, 1);
	lb_sched_transfer(s, 2, 3, 0, 0, 1);
	lb_sched_transfer(s, 1, 2, 0, 0, 1);
	lb_sched_transfer(s, 2, 1, 0, 1, 1);
	expect(s, "deadlock", "deadlock: rank 1 lane 0 waits to send block 1 to rank 3");

	s = lb_sched_new("hand", 3, 0, 1, 2, 2000);
	lb_sched_transfer(s, 0, 1, 0, 0, 1);
	lb_sched_transfer(s, 0, 2, 0, 0, 1);
	lb_sched_transfer(s, 1, 2, 0, 1, 1); /* rank 1 never gets block 1 */
	expect(s, "send before holding", "rank 1 lane 0 sends block 1 to rank 2 but never holds it");

	s = chain3(1);
	lb_sched_add(s, 2, LB_RECV, 1, 0, 1, 1); /* a RECV nobody sends */
	expect(s, "unmatched recv", "no SEND matches");

	s = chain3(1);
	lb_sched_transfer(s, 1, 2, 0, 0, 1);
	lb_sched_transfer(s, 2, 0, 0, 0, 1);
	expect(s, "root receives", "rank 0 is the root but receives block 0");

	s = chain3(1);
	lb_sched_add(s, 0, LB_SEND, 0, 0, 0, 1);
	expect(s, "send to itself", "bad peer 0");

	s = chain3(1);
	lb_sched_add(s, 0, LB_SEND, 1, 3, 0, 1);
	expect(s, "lane out of range", "lane 3 out of range");

	s = chain3(1);
	lb_sched_add(s, 0, LB_SEND, 1, 0, 1, 5);
	expect(s, "block out of range", "block range [1,6) outside [0,2)");

	/* Channel order: blocks swapped between SEND and RECV order. */
	s = lb_sched_new("hand", 2, 0, 1, 2, 2000);
	lb_sched_add(s, 0, LB_SEND, 1, 0, 0, 1);
	lb_sched_add(s, 0, LB_SEND, 1, 0, 1, 1);
	lb_sched_add(s, 1, LB_RECV, 0, 0, 1, 1);
	lb_sched_add(s, 1, LB_RECV, 0, 0, 0, 1);
	expect(s, "channel out of order", "out of step");
	return check_status("validator-broken");
}
