/* The transports built into this binary. */
#include <string.h>

#include "transport.h"

const struct lb_transport *const lb_transports[] = {
	&lb_transport_tcp,
	NULL,
};

const struct lb_transport *lb_transport_find(const char *name)
{
	for (size_t i = 0; lb_transports[i]; i++)
		if (strcmp(lb_transports[i]->name, name) == 0)
			return lb_transports[i];
	return NULL;
}
