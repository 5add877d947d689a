/* Provenance: what a result file says about the run that made it -- the
 * version, command line, time, options, transport, hosts and lanes -- as
 * an ordered list of key/value pairs (docs: results/README.md).
 *
 * Several layers add to one list: bench/ the command's part, the job
 * (engine/) the hosts and lanes.  The list keeps the documented key order
 * whoever adds first: a key is placed by its class (format, version,
 * command, time_utc, launcher, transport, tp_opt.*, option.*, ranks,
 * lanes, host.*, lane.*; anything else last), in adding order within a
 * class.  Values are single lines: CR and LF become spaces.
 *
 * Adding fails only when memory runs out; the list then remembers it
 * (lb_prov_failed) so callers check once, at the end. */
#ifndef LB_PROV_H
#define LB_PROV_H

#include <stddef.h>

struct lb_prov_item {
	char *key;
	char *value;
};

struct lb_prov {
	struct lb_prov_item *items;
	size_t n, cap;
	int failed; /* an add ran out of memory */
};

/* A growing string for building values: lb_buf_add appends like printf
 * (on running out of memory it keeps what it had and sets failed). */
struct lb_buf {
	char *s; /* NULL until something is added */
	size_t n, cap;
	int failed;
};

void lb_buf_add(struct lb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lb_buf_free(struct lb_buf *b);

/* Adds key with the printf-formatted value (see above for the order). */
void lb_prov_add(struct lb_prov *p, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Appends every item of from, each placed by its class. */
void lb_prov_add_all(struct lb_prov *p, const struct lb_prov *from);

/* The value of key, or NULL. */
const char *lb_prov_get(const struct lb_prov *p, const char *key);

/* Non-zero when an add ran out of memory. */
int lb_prov_failed(const struct lb_prov *p);

/* Frees the items; p is empty afterwards.  NULL is fine. */
void lb_prov_free(struct lb_prov *p);

#endif
