#include "idle.h"

#include <poll.h>
#include <time.h>

void lb_idle_sleep(int tp_fd, int wake_fd, double seconds)
{
	struct pollfd pf[2] = { { tp_fd, POLLIN, 0 }, { wake_fd, POLLIN, 0 } };
	double t = tp_fd < 0 && seconds > LB_IDLE_NAP ? LB_IDLE_NAP : seconds;
	struct timespec ts = { (time_t)t, (long)((t - (time_t)t) * 1e9) };
	(void)ppoll(pf, 2, &ts, NULL); /* negative fds are ignored; a signal ends it early */
}
