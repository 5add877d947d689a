/* The name a rank's host goes by in results and verdicts.  On a real
 * cluster that is the host name; on the emulated one (scripts/cluster)
 * every host shares the machine's host name, so each network namespace's
 * own name ("lb-h5") tells them apart. */
#ifndef LB_HOSTNAME_H
#define LB_HOSTNAME_H

#include <stddef.h>

/* $LANEBENCH_HOST, else the name of the network namespace this process
 * runs in (as `ip netns` names it under /run/netns), else gethostname();
 * "?" when none is known.  Always NUL-terminated. */
void lb_host_name(char *out, size_t len);

#endif
