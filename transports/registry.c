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

/* Length of the KEY of "KEY=VALUE". */
static size_t key_len(const char *item)
{
	return strcspn(item, "=");
}

int lb_tp_options_add(struct lb_tp_options *o, const char *item, char *err, size_t errlen)
{
	if (item[key_len(item)] != '=' || key_len(item) == 0)
		return lb_errf(err, errlen, "'%s' is not KEY=VALUE (each transport's keys: lanebench bcast --help)",
			       item);
	if (o->n == LB_TP_OPTIONS_MAX)
		return lb_errf(err, errlen, "'%s': more than %d transport options", item,
			       LB_TP_OPTIONS_MAX);
	o->item[o->n++] = item;
	return 0;
}

static const struct lb_tp_option *find_option(const struct lb_tp_option *table, const char *key,
					      size_t len)
{
	for (; table && table->key; table++)
		if (strlen(table->key) == len && strncmp(table->key, key, len) == 0)
			return table;
	return NULL;
}

int lb_tp_check_options(const struct lb_transport *t, const struct lb_tp_options *o,
			char *err, size_t errlen)
{
	char keys[256] = "";
	for (const struct lb_tp_option *k = t->options; k && k->key; k++)
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s",
			 k == t->options ? "" : ", ", k->key);
	for (uint32_t i = 0; i < o->n; i++) {
		size_t len = key_len(o->item[i]);
		if (!find_option(t->options, o->item[i], len))
			return lb_errf(err, errlen, "--tp-opt %.*s: the %s transport takes %s", (int)len,
				       o->item[i], t->name, keys[0] ? keys : "no options");
	}
	return 0;
}

const char *lb_tp_option(const struct lb_tp_option *table, const struct lb_tp_options *o,
			 const char *key)
{
	const struct lb_tp_option *opt = find_option(table, key, strlen(key));
	for (uint32_t i = o->n; i-- > 0;)
		if (key_len(o->item[i]) == strlen(key) && strncmp(o->item[i], key, strlen(key)) == 0)
			return o->item[i] + strlen(key) + 1;
	return opt ? opt->def : NULL;
}
