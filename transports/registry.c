/* The transports built into this binary. */
#include <stdio.h>
#include <string.h>

#include "transport.h"
#include "lib/error.h"

const struct lb_transport *const lb_transports[] = {
	&lb_transport_tcp,
#ifdef LB_HAVE_DPDK
	&lb_transport_dpdk,
#endif
#ifdef LB_HAVE_RDMA
	&lb_transport_rdma,
#endif
	NULL,
};

const char *const lb_tp_drop_names[LB_DROP_REASONS] = {
	"short", "ethertype", "version", "job", "not_mine", "malformed", "range",
	"duplicate", "window", "injected",
};

const struct lb_transport *lb_transport_find(const char *name)
{
	for (size_t i = 0; lb_transports[i]; i++)
		if (strcmp(lb_transports[i]->name, name) == 0)
			return lb_transports[i];
	return NULL;
}

int lb_tp_check_range(const char *transport, const char *lane, uint64_t off, uint64_t len,
		      uint64_t buflen, char *err, size_t errlen)
{
	if (off <= buflen && len <= buflen - off)
		return 0;
	return lb_errf(err, errlen, "%s lane '%s': bytes [%llu,+%llu) are not inside the %llu-byte registered buffer",
		       transport, lane, (unsigned long long)off, (unsigned long long)len,
		       (unsigned long long)buflen);
}

static int takes_option(const char *takes, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = takes; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && strncmp(p, name, n) == 0)
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

int lb_tp_check_options(const char *transport, const struct lb_tp_options *o,
			const char *takes, char *err, size_t errlen)
{
	const struct { const char *name, *value; } given[] = {
		{ "eal", o->eal }, { "rdma-op", o->rdma_op },
		{ "rdma-ack-timeout", o->rdma_ack_timeout }, { "inject", o->inject },
	};
	for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++)
		if (given[i].value && !takes_option(takes, given[i].name)) {
			snprintf(err, errlen, "--%s does not apply to the %s transport", given[i].name,
				 transport);
			return -1;
		}
	return 0;
}
