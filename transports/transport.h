/* The transport interface: one `static const struct lb_transport` per
 * transport (tcp.c, dpdk.c, rdma.c), listed in lb_transports[].
 *
 * Life of a transport instance (one per rank, all of its lanes):
 *   open -> register_buffer (once: RDMA publishes its address and key)
 *   -> local_address (per lane, exchanged through the bootstrap)
 *   -> connect (the channels the schedule needs)
 *   -> per iteration: post (receives and sends) / poll, and arm before
 *      the caller sleeps (from the lane's thread)
 *   -> close (always, also after any failure; releases in reverse order).
 * Optional members are NULL in a transport that cannot do what they do.
 *
 * Data-path calls for lane l are made only by lane l's thread, so a
 * transport keeps per-lane state and needs no locks between lanes.  Data
 * lands in place: a receive names the offset in the registered buffer. */
#ifndef LB_TRANSPORT_H
#define LB_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "port.h"

#define LB_TP_ADDR_MAX 64 /* bytes of one lane's address blob */

struct lb_tp; /* a transport instance */

/* One option a transport takes, `--tp-opt KEY=VALUE` on the command line;
 * a transport lists them in a table ended by a NULL key. */
struct lb_tp_option {
	const char *key;  /* "eal" */
	const char *arg;  /* what VALUE is, for help: "ARGS" */
	const char *help; /* one line */
	const char *def;  /* the value when not given, parsed as a given one
			   * is; NULL: none (help says what happens then) */
};

#define LB_TP_OPTIONS_MAX 16

/* The --tp-opt items given, each "KEY=VALUE" (pointing into argv), in the
 * order given; of a key given twice the last counts. */
struct lb_tp_options {
	const char *item[LB_TP_OPTIONS_MAX];
	uint32_t n;
};

struct lb_tp_cfg {
	uint32_t rank, size, lanes;
	const char *const *lane_names; /* interface, IPv4 address or device */
	const char *token;             /* job token every connection presents */
	double timeout;                /* seconds, for connecting */
	struct lb_tp_options opt;      /* checked: only keys of the transport's table */
	/* The caller never sleeps on arm() (--idle spin or yield: it polls
	 * until it has what it waits for), so a transport may deliver in
	 * ways that raise no event: rdma's mailbox for small messages. */
	int polls_only;
};

/* The peers each lane of this rank exchanges data with (both directions),
 * from the schedule: peers[lane][0 .. npeers[lane]). */
struct lb_tp_peers {
	const uint32_t *const *peers;
	const uint32_t *npeers;
};

/* What a transfer is, as posted and as its completion reports it. */
enum lb_xfer_kind { LB_XFER_SEND = 0, LB_XFER_RECV = 1 };

struct lb_completion {
	uint32_t id;  /* as given to post */
	uint8_t kind; /* enum lb_xfer_kind */
};

#define LB_TP_COUNTERS_MAX 32

/* One of a transport's counters: events since open, summed over the
 * lanes of a rank.  Reports name a column after it,
 * <transport>_<name>_count. */
struct lb_tp_counter {
	const char *name; /* [a-z0-9_]: "frames_sent"; static, fixed per transport */
	uint64_t value;
};

struct lb_transport {
	const char *name;
	const char *summary;
	/* The NICs --lanes auto means: "network" (interfaces) or "openfabrics"
	 * (verbs devices); NULL: every NIC hwloc lists. */
	const char *nic_kind;
	const struct lb_tp_option *options; /* what --tp-opt may set; NULL: nothing */
	/* On failure *out is NULL or an instance for close() to release;
	 * returns LB_EINPUT (lib/error.h) for a bad --tp-opt value, -1 else. */
	int (*open)(const struct lb_tp_cfg *cfg, struct lb_tp **out, char *err,
		    size_t errlen);
	/* Writes lane's address blob (<= LB_TP_ADDR_MAX bytes). */
	int (*local_address)(struct lb_tp *tp, uint32_t lane, void *addr);
	/* all_addrs: [rank * lanes + lane] blobs of LB_TP_ADDR_MAX bytes. */
	int (*connect)(struct lb_tp *tp, const uint8_t *all_addrs,
		       const struct lb_tp_peers *peers, char *err, size_t errlen);
	int (*register_buffer)(struct lb_tp *tp, void *buf, size_t len,
			       char *err, size_t errlen);
	/* Queue a transfer of kind (a send to peer, or a receive from it)
	 * of the bytes [offset, offset + len) of the registered buffer:
	 * 0 queued, 1 the lane's queue is full (poll, then try again), -1
	 * refused with the reason in err: bytes outside the registered
	 * buffer (naming them and its size), a peer the lane has no channel
	 * with, out of memory.  Receives of one (peer, lane) complete in
	 * posting order and must match the peer's sends on that lane one
	 * for one.  One op for both kinds: they share their checks and the
	 * channel lookup, and every caller picks the kind per op. */
	int (*post)(struct lb_tp *tp, uint32_t lane, enum lb_xfer_kind kind, uint32_t peer,
		    uint64_t offset, uint64_t len, uint32_t id, char *err, size_t errlen);
	/* Progress the lane: returns the number of completions written to out
	 * (0: nothing yet), or -1 with a reason naming peer and lane --
	 * LB_EPEER (lib/error.h) when the peer is gone: it closed the
	 * connection, disconnected, or stopped answering. */
	int (*poll)(struct lb_tp *tp, uint32_t lane, struct lb_completion *out,
		    int max, char *err, size_t errlen);
	/* Optional: a way to sleep while the lane has nothing to do (the
	 * caller owns the idle policy).  Returns a file
	 * descriptor that becomes readable when the lane may progress -- a
	 * completion, a peer's data, room to send, a peer gone -- or -1 when
	 * it cannot offer one this time.  From the lane's thread:
	 *   1. poll() found nothing;  2. fd = arm();  3. poll() once more:
	 *      what happened before arm() may raise no event, this poll
	 *      finds it;  4. nothing either: sleep in poll(2) on fd, with a
	 *      timeout;  5. poll() again, whatever ended the sleep.
	 * arm() reflects the transfers posted so far: post again, arm again.
	 * The fd is the transport's (never read or close it; valid until
	 * close) and may be readable with nothing to do: poll, arm again.
	 *   tcp:  an epoll set over the lane's sockets that have work:
	 *         readable for a posted receive, writable for a queued send
	 *         (a closed or reset connection makes it readable too);
	 *   rdma: an epoll set over the lane's completion channel, the CQ
	 *         armed by ibv_req_notify_cq (arm() takes the event of the
	 *         previous arming, acked in batches), and its connection-manager
	 *         channel (a peer's disconnect); its mailbox, which raises
	 *         no event, is used only when the caller polls_only;
	 *   dpdk: on a lane of one net_af_packet port, the PMD's packet
	 *         socket (readable while its rx ring holds a frame); other
	 *         PMDs raise no event: -1, the caller naps briefly, and dpdk's
	 *         service thread answers peers meanwhile. */
	int (*arm)(struct lb_tp *tp, uint32_t lane);
	/* Optional: link speed in bytes/s, 0 if unknown. */
	double (*lane_rate)(struct lb_tp *tp, uint32_t lane);
	/* Optional: writes the counters to out[] and returns how many (at
	 * most LB_TP_COUNTERS_MAX): the same names in the same order on
	 * every call.  May be called from a thread other than the lanes'.
	 *   tcp:  segments_retransmitted (TCP_INFO, over the lane sockets);
	 *   dpdk: frames sent, retransmitted, received, acks sent, frames
	 *         dropped and the drops by reason (transports/dpdk/dpdk.c);
	 *   rdma: messages sent and received through the mailbox, and the
	 *         credit writes that free it (transports/rdma.c). */
	int (*counters)(struct lb_tp *tp, struct lb_tp_counter *out);
	/* Optional: what the transport knows of lane's port, over what the
	 * system said: f arrives filled by launch/portinfo.c (sysfs, ethtool);
	 * the transport overwrites what it knows better and appends
	 * "+<transport>" to f->source.  After open, from any thread.
	 *   tcp:  addr, the address the lane binds to (the lane may name
	 *         one of several of its interface), and ifname if unknown;
	 *   dpdk: the lane's first port: mac, mtu, link state and carrier
	 *         where sysfs had none (no netdev: memif, a PCI NIC bound to
	 *         vfio); speed_bps only from a PMD that drives a device --
	 *         a vdev's link speed is made up (af_packet says 10G, over
	 *         a 100G NIC too); driver if unknown, and the PMD in source:
	 *         "+dpdk(af_packet)";
	 *   rdma: ibv_query_port of the lane's device port: rdma_dev,
	 *         rdma_port, rdma_state, rdma_mtu, gid (index 0), and
	 *         speed_bps and width where sysfs had none and the netdev
	 *         is not virtual (Soft-RoCE on a veth: a made-up speed). */
	void (*port_facts)(struct lb_tp *tp, uint32_t lane, struct lb_port_facts *f);
	/* Optional: lane's own counters -- retransmissions, drops, errors and
	 * the traffic a ratio needs -- appended to c (up to
	 * LB_PORT_COUNTERS_MAX), named "<transport>:<name>" (or "xstat:<name>",
	 * a DPDK port's), the same names in the same order on every call;
	 * may be called from a thread other than the lane's (between
	 * transfers: check reads them before and after each pair; not while
	 * forget() runs).  Never lower than at an earlier call.
	 *   tcp:  tcp:retransmits, tcp:segments_out (TCP_INFO's
	 *         tcpi_total_retrans and tcpi_segs_out over the lane's
	 *         connections, those closed by forget included);
	 *   dpdk: the lane's part of counters() as dpdk:frames_sent,
	 *         dpdk:retransmitted, dpdk:frames_received, dpdk:acks_sent,
	 *         dpdk:dropped and dpdk:dropped_<reason>; then its ports'
	 *         rte_eth_stats as xstat:ierrors, xstat:oerrors,
	 *         xstat:imissed, xstat:rx_nombuf, and the xstats whose names
	 *         say trouble (err, drop, discard, miss, crc, fail) beyond
	 *         those, as xstat:<name>, summed over the lane's ports;
	 *   rdma: the lane's part of counters(): rdma:mailbox_sends,
	 *         rdma:mailbox_receives, rdma:credit_writes; then its device
	 *         port's retries (sysfs hw_counters: Soft-RoCE's
	 *         completer_retry_err and rcvd_seq_err, mlx5's ack timeouts
	 *         and sequence NAKs) summed as rdma:retransmitted, and its
	 *         packets sent (hw_counters/sent_pkts, else
	 *         counters/port_xmit_packets) as rdma:frames_sent: the port
	 *         is the lane's alone, so around a pair they are the pair's. */
	void (*lane_counters)(struct lb_tp *tp, uint32_t lane, struct lb_port_counters *c);
	/* Optional: gives up on the channel (lane, peer) for good, for a
	 * caller that stopped waiting for the peer there (a pair of
	 * `lanebench check` that failed or ran out of time).  Every transfer
	 * posted with the peer on the lane and not completed is dropped, with
	 * its completions poll has not returned yet; the peer is not waited
	 * for any more (its silence fails no later poll of the lane) and what
	 * it sends on the lane is discarded; a later post to it on the lane is
	 * refused (-1, naming it).  The lane's other peers and the other lanes
	 * go on as before.  From the lane's thread; a peer the lane has no
	 * channel with is ignored.  Without it (NULL) what was outstanding
	 * stays, and a dead peer may fail later polls of the lane.
	 *   tcp:  closes the connection;
	 *   dpdk: drops the channel's window, queues and the frames it held;
	 *   rdma: none (NULL). */
	void (*forget)(struct lb_tp *tp, uint32_t lane, uint32_t peer);
	/* Optional: after connect returned -- also when it failed -- 1 when
	 * the channel (lane, peer) was made and may carry transfers, 0 when
	 * not, so that a caller that can do without some peers (calibrate on
	 * a platform with missing links) goes on with the channels that
	 * were made.  Without it (NULL) a failed connect leaves no channel the
	 * caller may count on.  A channel made may still carry nothing (a
	 * link cut one way, a transport that connects without a handshake):
	 * the caller's first exchange tells.
	 *   tcp:  the connection was made and not given up (forget);
	 *   dpdk, rdma: none (NULL; dpdk's connect fails only for its own
	 *         ports, not for a peer). */
	int (*connected)(struct lb_tp *tp, uint32_t lane, uint32_t peer);
	void (*close)(struct lb_tp *tp);
};

extern const struct lb_transport lb_transport_tcp;
extern const struct lb_transport lb_transport_dpdk; /* built with -Ddpdk */
extern const struct lb_transport lb_transport_rdma; /* built with -Drdma */

/* All transports built into this binary; NULL-terminated. */
extern const struct lb_transport *const lb_transports[];

const struct lb_transport *lb_transport_find(const char *name);

/* Appends one "KEY=VALUE" (non-empty KEY) to o, or -1 with a reason. */
int lb_tp_options_add(struct lb_tp_options *o, const char *item, char *err, size_t errlen);

/* Before open: 0 when every key of o is in t's table, else -1 naming the
 * key, the transport and the keys it takes. */
int lb_tp_check_options(const struct lb_transport *t, const struct lb_tp_options *o,
			char *err, size_t errlen);

/* For open: key's value -- the last given in o, else the table's default,
 * else NULL. */
const char *lb_tp_option(const struct lb_tp_option *table, const struct lb_tp_options *o,
			 const char *key);

/* For post: 0 when [off, off + len) lies inside the
 * registered buffer of buflen bytes, else -1 with a reason naming the
 * transport, the lane, the bytes and the buffer's size. */
int lb_tp_check_range(const char *transport, const char *lane, uint64_t off, uint64_t len,
		      uint64_t buflen, char *err, size_t errlen);

#endif
