/* --agents auto|N (agents_opt.h). */
#include "agents_opt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/prov.h"

int lb_cli_set_agents(void *target, const char *arg, char *err, size_t errlen)
{
	uint32_t *agents = target;
	char *end;
	if (strcmp(arg, "auto") == 0) {
		*agents = 0;
		return 0;
	}
	errno = 0;
	unsigned long n = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || n < 1 || n > UINT32_MAX) {
		snprintf(err, errlen, "'%s': want auto or an agent count of at least 1", arg);
		return -1;
	}
	*agents = (uint32_t)n;
	return 0;
}

void lb_cli_show_agents(const void *target, struct lb_buf *out)
{
	uint32_t agents = *(const uint32_t *)target;
	if (agents)
		lb_buf_add(out, "%u", agents);
	else
		lb_buf_add(out, "auto");
}
