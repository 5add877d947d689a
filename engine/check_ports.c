/* The check's ports beyond their figures (check.h): what each one is
 * before traffic (launch/portinfo.c, then the transport's port_facts),
 * what its counters grew by, and where a port that carried nothing with
 * any partner answers.  Measuring side; the verdicts are check_verdict.c's
 * and check_inventory.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check_private.h"
#include "launch/arpprobe.h"
#include "launch/portinfo.h"
#include "lib/error.h"

/* The probe's bound: ARP answers in microseconds on a wire; a second
 * leaves room for a loaded host and stays small beside a pair's timeout. */
#define WIRING_PROBE_SECONDS 1.0

/* The system's counters of lane's port, then the transport's. */
static void read_counters(const struct check *c, uint32_t lane, const struct lb_port_facts *f,
			  struct lb_port_counters *out)
{
	memset(out, 0, sizeof(*out));
	lb_port_counters_read(NULL, f, out);
	if (c->job.ops->lane_counters)
		c->job.ops->lane_counters(c->job.tp, lane, out);
}

static void read_facts(const struct check *c, uint32_t lane, struct lb_port_facts *f)
{
	lb_port_read(NULL, c->job.lane_names[lane], f);
	if (c->job.ops->port_facts)
		c->job.ops->port_facts(c->job.tp, lane, f);
}

int check_inventory(struct check *c, char *err, size_t len)
{
	uint32_t lanes = c->job.lanes;
	struct lb_port_facts *mine = calloc(lanes, sizeof(*mine));
	c->facts = calloc((size_t)c->job.size * lanes, sizeof(*c->facts));
	c->before = calloc(lanes, sizeof(*c->before));
	c->ends = calloc(lanes, sizeof(*c->ends));
	int rc = mine && c->facts && c->before && c->ends ? 0 : lb_errf(err, len, "out of memory");
	for (uint32_t l = 0; rc == 0 && l < lanes; l++) {
		read_facts(c, l, &mine[l]);
		read_counters(c, l, &mine[l], &c->before[l]);
	}
	rc = lb_job_agree(&c->job, rc, err, len);
	if (rc == 0)
		rc = lb_boot_allgather(c->job.boot, mine, lanes * sizeof(*mine), c->facts, err, len);
	free(mine);
	return rc;
}

void check_lane_counters(const struct check *c, uint32_t lane, struct lb_port_counters *out)
{
	memset(out, 0, sizeof(*out));
	if (c->job.ops->lane_counters)
		c->job.ops->lane_counters(c->job.tp, lane, out);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* transports/port.h names them: what was sent again, and what was sent. */
static int is_resent(const char *name)
{
	return ends_with(name, ":retransmits") || ends_with(name, ":retransmitted");
}

static int is_sent(const char *name)
{
	return ends_with(name, ":segments_out") || ends_with(name, ":frames_sent");
}

void check_pair_loss(const struct lb_port_counters *before, const struct lb_port_counters *after,
		     uint64_t *resent, uint64_t *sent)
{
	struct lb_port_counters d;
	lb_port_counters_delta(before, after, &d);
	*resent = *sent = 0;
	for (uint32_t i = 0; i < d.n; i++) {
		if (is_resent(d.c[i].name))
			*resent += d.c[i].value;
		else if (is_sent(d.c[i].name))
			*sent += d.c[i].value;
	}
}

/* ---- wiring ---------------------------------------------------------------- */

/* Lane's port of this rank met partners in phase 1 and carried data both
 * ways with none of them. */
static int silent(const struct check *c, uint32_t lane)
{
	size_t per = (size_t)c->job.lanes * c->slots;
	int met = 0;
	for (uint32_t r = 0; r < c->slots; r++) {
		const struct check_pair *m = &c->all[c->job.rank * per + lane * c->slots + r];
		if (m->partner < 0)
			continue;
		const struct check_pair *back = &c->all[(size_t)m->partner * per + lane * c->slots + r];
		if (m->ok && back->ok)
			return 0;
		met = 1;
	}
	return met;
}

/* Every other rank's address on each lane: addrs[k * lanes + l] (NULL
 * where none is known), probed at once. */
static size_t peer_addresses(const struct check *c, const char **addrs, uint32_t *lane_of)
{
	size_t n = 0;
	for (uint32_t k = 0; k < c->job.size; k++)
		for (uint32_t l = 0; l < c->job.lanes; l++) {
			const char *a = c->facts[(size_t)k * c->job.lanes + l].addr;
			if (k == c->job.rank || !*a)
				continue;
			addrs[n] = a;
			lane_of[n++] = l;
		}
	return n;
}

/* "10.10.0.7" -> "10.10.0.x" */
static void network_of(const char *addr, char *out, size_t len)
{
	const char *dot = strrchr(addr, '.');
	snprintf(out, len, "%.*s.x", dot ? (int)(dot - addr) : (int)strlen(addr), addr);
}

/* The port (rank * lanes + lane) whose MAC answered for `asked`, from the
 * inventory: the one with both that MAC and that address when lanes share
 * a MAC (VLANs on one NIC, a bond), else the first with the MAC; -1 when
 * no port of the job has it. */
static long answering_port(const struct check *c, const char *mac, const char *asked)
{
	size_t ports = (size_t)c->job.size * c->job.lanes;
	long first = -1;
	for (size_t i = 0; *mac && i < ports; i++) {
		if (strncasecmp(c->facts[i].mac, mac, sizeof(c->facts[i].mac)) != 0)
			continue;
		if (strncmp(c->facts[i].addr, asked, sizeof(c->facts[i].addr)) == 0)
			return (long)i;
		first = first < 0 ? (long)i : first;
	}
	return first;
}

/* What answered, counted per lane by the port that answered (a host left
 * at Linux's default answers for all its addresses on every interface, so
 * the address asked does not tell the wire, the answering port does): own
 * lane, and the other lane most of whose ports answered. */
static void tally(const struct check *c, uint32_t lane, const char *const *addrs,
		  const uint32_t *lane_of, const int *answered, char (*macs)[LB_ARP_MAC_TEXT],
		  size_t n, struct check_wiring *w)
{
	int32_t per_lane[LB_JOB_MAX_LANES] = { 0 };
	const char *first[LB_JOB_MAX_LANES] = { 0 };
	uint8_t *counted = calloc((size_t)c->job.size * c->job.lanes, 1);
	w->other_lane = -1;
	for (size_t i = 0; i < n; i++) {
		w->own_asked += lane_of[i] == lane;
		if (!answered[i])
			continue;
		long port = answering_port(c, macs[i], addrs[i]); /* else: the address's lane */
		if (port >= 0 && counted && counted[port]++) /* a port answering for all its host's */
			continue;
		uint32_t l = port >= 0 ? (uint32_t)(port % c->job.lanes) : lane_of[i];
		const char *net = port >= 0 && c->facts[port].addr[0] ? c->facts[port].addr : addrs[i];
		per_lane[l]++;
		first[l] = first[l] ? first[l] : net;
	}
	free(counted);
	w->own = per_lane[lane];
	for (uint32_t l = 0; l < c->job.lanes; l++)
		if (l != lane && per_lane[l] > w->other) {
			w->other = per_lane[l];
			w->other_lane = (int32_t)l;
		}
	if (w->other_lane >= 0)
		network_of(first[w->other_lane], w->other_net, sizeof(w->other_net));
}

static void probe_lane(const struct check *c, uint32_t lane, struct check_wiring *w)
{
	size_t cap = (size_t)c->job.size * c->job.lanes;
	const char **addrs = calloc(cap, sizeof(*addrs));
	uint32_t *lane_of = calloc(cap, sizeof(*lane_of));
	int *answered = calloc(cap, sizeof(*answered));
	char (*macs)[LB_ARP_MAC_TEXT] = calloc(cap, sizeof(*macs));
	const char *ifname = c->facts[(size_t)c->job.rank * c->job.lanes + lane].ifname;
	*w = (struct check_wiring){ .other_lane = -1 };
	if (!addrs || !lane_of || !answered || !macs)
		snprintf(w->why, sizeof(w->why), "out of memory");
	else if (!*ifname)
		snprintf(w->why, sizeof(w->why), "the port has no network interface to probe from");
	else {
		size_t n = peer_addresses(c, addrs, lane_of);
		char err[96];
		if (n == 0)
			snprintf(w->why, sizeof(w->why), "no other port's address to ask");
		else if (lb_arp_probe(ifname, addrs, n, WIRING_PROBE_SECONDS, answered, macs, err,
				 sizeof(err)) < 0)
			snprintf(w->why, sizeof(w->why), "%s", err);
		else {
			w->probed = 1;
			tally(c, lane, addrs, lane_of, answered, macs, n, w);
		}
	}
	free(addrs);
	free(lane_of);
	free(answered);
	free(macs);
}

void check_probe_wiring(struct check *c)
{
	for (uint32_t l = 0; l < c->job.lanes; l++)
		if (silent(c, l))
			probe_lane(c, l, &c->ends[l].wiring);
}

void check_port_ends(struct check *c)
{
	for (uint32_t l = 0; l < c->job.lanes; l++) {
		struct lb_port_counters after;
		const struct lb_port_facts *f = &c->facts[(size_t)c->job.rank * c->job.lanes + l];
		read_counters(c, l, f, &after);
		lb_port_counters_delta(&c->before[l], &after, &c->ends[l].delta);
	}
}

void check_ports_free(struct check *c)
{
	free(c->facts);
	free(c->before);
	free(c->ends);
}
