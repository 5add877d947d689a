/* dpdk: raw Ethernet frames through rte_ethdev, with our own reliable
 * delivery (Ethernet and af_packet drop; see reliable.h) and frame format
 * (see frame.h).
 *
 * Ports and lanes.  EAL creates the ports from --tp-opt eal=... (vdevs or
 * PCI devices); without it every lane i is a vdev on the interface of its
 * name, `net_af_xdp_l<i>` or `net_af_packet_l<i>` (--tp-opt pmd; see
 * "lanes' PMD" below), which suits the emulated cluster.  A port belongs to
 * a lane by its device name:
 *   ..._l<L>        lane L, every peer of the lane (a switched fabric:
 *                   af_packet, a PCI NIC); peers are told apart by MAC and
 *                   by the source rank in our header;
 *   ..._l<L>_p<P>   lane L, peer P only (a point-to-point link: memif
 *                   gives one link per pair of ranks, so a lane with three
 *                   peers has three ports, each its own rx/tx queue);
 *   anything else   lane i is the i-th such port, when their count is the
 *                   lane count (PCI devices in -a order).
 * A lane's address blob is the MAC of its first port.  (net_af_packet in
 * 22.11 names its PACKET_FANOUT group pid ^ ifindex, per network namespace:
 * two processes of one namespace with ports on different interfaces fail
 * to probe when their pids differ by the interfaces' xor.)
 *
 * Threads.  Each lane has a lock: the lane's thread polls under it, and a
 * service thread of ours progresses a lane nobody polled for a while and
 * whose thread does not sleep on arm()'s fd (it re-acks retransmissions
 * and retransmits lost frames).  Without it a rank that finished its part
 * would stop answering: if its last ack was lost, the peer would
 * retransmit forever into a rank that no longer polls, while that rank
 * waits for the peer in a barrier.
 *
 * Per (peer, lane) channel: sequence numbers, acks, retransmission, a
 * window of in-flight frames.  Frame i of message m of a channel lands at
 * its offset inside the m-th posted receive of that channel; a frame for a
 * receive not posted yet (the peer started the iteration first) is held
 * until it is (rx.h: a receive completes once every byte of it arrived).
 * EAL exists once per process: one open per process.
 *
 * Dead peers.  Every channel sends the peer something at least every
 * KEEPALIVE (its ack, if nothing else), from the lane's thread or the
 * service thread, so a live peer is never silent for long even when it
 * has no data for us.  A channel that waits for its peer (a send not
 * acknowledged, a receive not filled) and has heard nothing from it --
 * data, ack or keepalive -- for silence_max (--tp-opt silence, else
 * SILENCE_MAX, at most half of --timeout)
 * makes poll() fail with LB_EPEER, naming lane and rank -- any poll of
 * the lane, whichever peer the caller waits for then.  So a caller that
 * stops waiting for a peer calls forget(): the channel's transfers and
 * frames go, and the lane's other peers are not failed for its silence.
 *
 * Closing.  The job closes after a barrier of all ranks (engine/job.c), so
 * nobody still needs our acks.  af_packet, af_xdp (which takes its XDP
 * program off the interface) and PCI ports are stopped and closed; memif ports are left to go down with the process (see
 * close_lane), and EAL is not torn down (rte_eal_cleanup races memif's
 * interrupt thread); the runtime directory we named is removed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#ifdef LB_HAVE_LIBXDP
#include <stdarg.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#endif

#include "frame.h"
#include "reliable.h"
#include "rx.h"
#include "lib/ring.h"
#include "transports/transport.h"
#include "lib/error.h"

#define MAX_PORTS 64
#define NB_RXD 512
#define NB_TXD 512
#define BURST 32
#define HOLD_MAX 32   /* frames held back by inject reorder, per lane */
/* Seconds a frame waits in the stash for its receive to be posted (see
 * rx.h): twice the longest retransmission timeout.  By then its sender
 * has sent it again if it is the oldest frame the sender waits for; any
 * other goes again as a hole once an older one lands. */
#define STASH_AGE (2 * LB_REL_MAX_RTO)
/* Frames in flight per (peer, lane): WINDOW_BYTES of payload, between
 * WINDOW_MIN and WINDOW_MAX frames (lane_window).  128 standard frames
 * (187 KB) did not limit at 700 Mbit/s, nor did 256; jumbo frames keep
 * 1 MiB in flight (117 of 9000 bytes, 16 of 64000; a 4 MiB window was no
 * faster), which the af_packet ring (AFP_JUMBO_SLOTS) holds. */
#define WINDOW_BYTES (1u << 20)
#define WINDOW_MIN 8
#define WINDOW_MAX 128
#define ACK_DELAY 1e-3         /* seconds an ack may wait for more frames */
#define SERVICE_NAP 1e-3 /* the service thread's period */
/* A lane whose thread sleeps on its wake_fd is its thread's: it wakes on
 * the next frame and polls at least every LB_IDLE_MAX_SLEEP (10 ms) while
 * it has work.  Had the service thread taken the frames meanwhile, their
 * completions would wait for that timeout (seen: 8 x 2 broadcasts 35%
 * slower); past this grace the thread has left its loop. */
#define ARMED_GRACE 30e-3
/* An idle channel's ack goes out this often: the peer's proof of life. */
#define KEEPALIVE 0.1
/* Silence of a peer we wait for that means it is gone, by default: 30
 * keepalives, so 20% loss (inject drop=0.2: 0.2^30) cannot fake it, nor
 * can a rank descheduled for a while on a moderately busy machine (the
 * longest silence of a live peer seen in dpdk_cluster.sh, 8 ranks on 2
 * shared cores, 20% loss: 0.4 s).  A niced rank on a machine at load 20-30
 * can stay off the CPU longer than that: --tp-opt silence raises it. */
#define SILENCE_MAX 3.0
#define SILENCE_MIN 0.5 /* 5 keepalives */
#define LINK_WAIT 10.0   /* seconds a port may take to come up */

/* Why a received frame was dropped: the parser's verdicts first (verdict
 * v is drop v - 1), then the reliable layer's and the inject option's. */
enum drop {
	DROP_SHORT, DROP_ETHERTYPE, DROP_VERSION, DROP_JOB, DROP_NOT_MINE, DROP_MALFORMED, DROP_RANGE,
	DROP_DUPLICATE, /* a frame that had arrived before */
	DROP_OVERLAP,   /* a new seq, but bytes of its receive that had arrived */
	DROP_WINDOW,    /* beyond the receive window, or no room to hold or place it */
	DROP_STALE,     /* held longer than STASH_AGE for a receive not posted */
	DROP_INJECTED,  /* the inject option's drop */
	DROPS
};
_Static_assert(DROP_SHORT == LB_FRAME_SHORT - 1 && DROP_RANGE == LB_FRAME_RANGE - 1 &&
	       LB_FRAME_RANGE + 1 == LB_FRAME_VERDICTS, "verdict v counts as drop v - 1");

/* A lane's counts, under its lock. */
struct counts {
	uint64_t frames_sent;          /* data frames, first transmissions and again */
	uint64_t frames_retransmitted; /* of those, transmissions after the first */
	uint64_t frames_received;      /* data frames written into the buffer */
	uint64_t acks_sent;
	uint64_t dropped[DROPS];
};

/* What counters() reports, in this order: the counts summed over the
 * lanes, frames_dropped being the sum of the drops by reason. */
static const char *const counter_names[] = {
	"frames_sent", "frames_retransmitted", "frames_received", "acks_sent", "frames_dropped",
	"dropped_short", "dropped_ethertype", "dropped_version", "dropped_job", "dropped_not_mine",
	"dropped_malformed", "dropped_range", "dropped_duplicate", "dropped_overlap",
	"dropped_window", "dropped_stale", "dropped_injected",
};
#define NCOUNTERS (sizeof(counter_names) / sizeof(counter_names[0]))
_Static_assert(NCOUNTERS == 5 + DROPS && NCOUNTERS <= LB_TP_COUNTERS_MAX,
	       "a name per count, drops by reason last");

struct xfer { /* a posted send (receives: rx.h) */
	uint64_t off, len;
	uint64_t done;    /* bytes put in frames */
	uint32_t end_seq; /* one past its last frame, once all framed */
	uint32_t id;
};

struct chan { /* one (peer, lane) */
	uint32_t rank;
	uint16_t port;
	struct rte_ether_addr mac;
	struct lb_rel_tx tx;
	struct lb_rx_chan rx;  /* the posted receives and the seq filter */
	struct lb_ring sendq;  /* of struct xfer */
	uint32_t framed;    /* sends of sendq fully cut into frames */
	uint32_t send_msg;  /* msg index of sendq's head */
	uint32_t unacked;      /* frames taken since our last ack */
	double unacked_since;  /* when the first of them came */
	int ack_now;           /* an ack that cannot wait (see ack_later) */
	double heard_at;    /* last frame from the peer: data, ack or keepalive */
	double sent_at;     /* last frame to the peer */
	double busy_since;  /* when the channel last got work after none */
	int forgotten;      /* forget(): no transfers, no frames either way */
};

struct done { /* a completion not yet returned, and whose it is */
	struct lb_completion c;
	uint32_t peer;
};

struct comps {
	struct done *c;
	uint32_t n, cap;
};

struct inject {
	double drop, dup, reorder; /* probabilities */
};

/* --tp-opt pmd: the lanes' PMD without the eal option. */
enum pmd_choice { PMD_AUTO, PMD_AF_XDP, PMD_AF_PACKET };

struct lane {
	pthread_mutex_t mu;
	const char *name;
	uint32_t index;
	uint16_t ports[MAX_PORTS];
	uint8_t started[MAX_PORTS]; /* rte_eth_dev_start succeeded */
	uint32_t nports;
	int per_peer;          /* ports named _l<L>_p<P> */
	int32_t *port_of;      /* per_peer: [rank] -> port, -1 none */
	struct rte_mempool *pool;
	struct rte_mempool *attach_pool; /* af_packet: payload mbufs on the buffer (payload_mbuf) */
	struct rte_mbuf_ext_shared_info attached; /* theirs: never freed (we hold a reference) */
	uint32_t frame_max;    /* bytes of the largest frame, Ethernet header included */
	uint32_t data_room;    /* bytes of an mbuf's data: what the PMDs' rx rings want */
	uint32_t window;       /* frames in flight per peer (lane_window) */
	struct rte_ether_addr mac;
	struct chan *chans;
	uint32_t nchans;
	int32_t *chan_of;      /* [rank] -> index into chans, -1 none */
	struct lb_rx_stash stash; /* of mbufs */
	int stash_dirty;
	struct rte_mbuf *held[HOLD_MAX];
	uint32_t nheld;
	struct comps done;
	struct counts cnt;
	uint64_t rng;
	atomic_llong last_poll_ns;
	atomic_llong armed_ns; /* the lane's thread last went to sleep on wake_fd */
	int wake_fd;           /* arm(): the af_packet or af_xdp PMD's socket, or -1 */
	int xdp_fallback;      /* pmd auto chose af_xdp: af_packet if it fails */
	double rx_at;          /* when the current receive burst was taken */
	double longest_quiet;  /* of a peer while waited for (LB_DPDK_DEBUG) */
	/* lane_counters' xstats (choose_xstats): nx names, "xstat:<name>",
	 * and their ids on each port, [port index * XSTATS_MAX + i] (UINT64_MAX: the
	 * port has none of that name). */
	char (*xnames)[LB_PORT_COUNTER_NAME];
	uint64_t *xids;
	uint32_t nx;
};

struct lb_tp {
	struct lb_tp_cfg cfg;
	struct lb_frame_expect expect;
	struct inject inj;
	uint8_t *buf;
	size_t buflen;
	struct lane *lanes;
	double silence_max;    /* seconds: --tp-opt silence, else SILENCE_MAX or half the timeout */
	uint32_t mtu_cap;      /* --tp-opt mtu, 0: none */
	enum pmd_choice pmd;   /* --tp-opt pmd */
	pthread_t service;
	int service_started;
	atomic_int quit;
};

static int eal_state; /* 0 never, 1 up, -1 failed or torn down */
static int own_prefix; /* we named the runtime directory: remove it at close */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void nap(double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };
	nanosleep(&ts, NULL);
}

/* ---- options --------------------------------------------------------- */

/* --tp-opt keys: eal goes to EAL as it is (eal_args), inject and mtu are
 * parsed below. */
static const struct lb_tp_option dpdk_options[] = {
	{ "eal", "ARGS", "EAL arguments for this rank, e.g. \"--no-huge -m 128 --vdev net_memif_l0_p1,...\" (without it: each lane's interface on the PMD pmd= names)", NULL },
	{ "inject", "FAULTS", "testing: drop, duplicate or reorder received frames, drop=0.01,dup=0.01,reorder=0.01", NULL },
	{ "silence", "SECONDS", "a peer waited for that sends nothing (data, ack or keepalive) this long is gone (0.5..1e6; default 3, or half of the connect timeout if shorter); raise it on a busy machine", NULL },
	{ "mtu", "BYTES", "largest frame, Ethernet header not counted (576..64000; default: each lane's interface MTU on af_packet and af_xdp, else the port's)", NULL },
	{ "pmd", "NAME", "without eal: each lane's PMD, af_xdp, af_packet or auto (af_xdp where the lane's MTU fits its frames and the interface takes an XDP program, else af_packet)", "auto" },
	{ NULL, NULL, NULL, NULL },
};

/* One "name=P" of inject, P a probability in [0, 1]. */
static int inject_item(struct inject *in, const char *item, char *err, size_t len)
{
	static const char *const names[] = { "drop", "dup", "reorder" };
	double *slots[] = { &in->drop, &in->dup, &in->reorder };
	const char *eq = strchr(item, '=');
	for (int i = 0; eq && i < 3; i++) {
		if (strlen(names[i]) != (size_t)(eq - item) || strncmp(item, names[i], (size_t)(eq - item)))
			continue;
		char *end;
		errno = 0;
		double p = strtod(eq + 1, &end);
		if (errno || end == eq + 1 || *end || !(p >= 0 && p <= 1))
			return lb_errf(err, len, "dpdk: --tp-opt inject: %s: '%s' is not a probability in [0, 1]",
				       names[i], eq + 1);
		*slots[i] = p;
		return 0;
	}
	return lb_errf(err, len, "dpdk: --tp-opt inject: bad item '%s' (expected drop=P, dup=P or reorder=P)",
		       item);
}

static int parse_inject(struct inject *in, const char *spec, char *err, size_t len)
{
	memset(in, 0, sizeof(*in));
	if (!spec)
		return 0;
	char *copy = strdup(spec), *save = NULL;
	int rc = copy ? 0 : lb_errf(err, len, "dpdk: out of memory");
	if (rc == 0 && !*copy)
		rc = lb_errf(err, len, "dpdk: --tp-opt inject is empty (expected drop=P,dup=P,reorder=P)");
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; rc == 0 && t;
	     t = strtok_r(NULL, ",", &save))
		rc = inject_item(in, t, err, len);
	free(copy);
	return rc;
}

#define MTU_MIN 576
#define MTU_MAX LB_FRAME_MTU_MAX

/* --tp-opt mtu into *mtu; 0 when not given. */
static int parse_mtu(const char *spec, uint32_t *mtu, char *err, size_t len)
{
	*mtu = 0;
	if (!spec)
		return 0;
	char *end;
	errno = 0;
	unsigned long v = strtoul(spec, &end, 10);
	if (errno || end == spec || *end || v < MTU_MIN || v > MTU_MAX)
		return lb_errf(err, len, "dpdk: --tp-opt mtu: '%s' is not a number of bytes in [%d, %d]",
			       spec, MTU_MIN, MTU_MAX);
	*mtu = (uint32_t)v;
	return 0;
}

/* silence=SECONDS, else the default: SILENCE_MAX, at most half of the
 * connect timeout (a dead peer is then reported before that runs out). */
static int parse_silence(const char *spec, double timeout, double *out, char *err, size_t len)
{
	*out = timeout / 2 < SILENCE_MAX ? timeout / 2 : SILENCE_MAX;
	if (!spec)
		return 0;
	char *end;
	errno = 0;
	double v = strtod(spec, &end);
	if (errno || end == spec || *end || !(v >= SILENCE_MIN && v <= 1e6))
		return lb_errf(err, len, "dpdk: --tp-opt silence: '%s' is not a number of seconds in [%g, 1e6]",
			       spec, SILENCE_MIN);
	*out = v;
	return 0;
}

#ifdef LB_HAVE_LIBXDP
static int quiet_bpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

static int quiet_xdp(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}
#endif

/* LeakSanitizer's suppressions, for the sanitizer builds (a strong
 * definition of the runtime's weak hook; unused otherwise): the umem
 * struct libxdp 1.3 allocates for a net_af_xdp port (xsk_umem__create)
 * is still allocated after rte_eth_dev_close, 80 bytes a port, once per
 * process; and the PMD opens our XDP program's object with libbpf
 * (xdp_prog=) and never closes it, about 5 KB a port.  The PMD holds
 * both, not lanebench: nothing here could free them. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:xsk_umem__create\nleak:libbpf.so\n";
}

/* net_af_xdp's libraries say what they do at every port they open, on
 * stderr of every rank ("No bpffs found", ELF sections they skip): only
 * with LB_DPDK_DEBUG.  Their failures reach the user as the PMD's. */
static void quiet_xdp_libs(void)
{
#ifdef LB_HAVE_LIBXDP
	if (getenv("LB_DPDK_DEBUG"))
		return;
	libbpf_set_print(quiet_bpf);
	libxdp_set_print(quiet_xdp);
#endif
}

/* --tp-opt pmd. */
static int parse_pmd(const char *spec, enum pmd_choice *pmd, char *err, size_t len)
{
	static const char *const names[] = { "auto", "af_xdp", "af_packet" };
	for (int i = 0; i < 3; i++)
		if (spec && strcmp(spec, names[i]) == 0) {
			*pmd = (enum pmd_choice)i;
			return 0;
		}
	return lb_errf(err, len, "dpdk: --tp-opt pmd: '%s' is not auto, af_xdp or af_packet",
		       spec ? spec : "");
}

/* ---- af_packet ring slots ---------------------------------------------- */

/* net_af_packet (22.11) copies every frame through a ring of slots of
 * framesz bytes (default 2048) and reports max_rx_pktlen 1518 whatever
 * framesz is; jumbo frames pass when the slots hold them.  The kernel
 * writes a received frame at AFP_RX_OFFSET in its slot (TPACKET_ALIGN(
 * TPACKET2_HDRLEN + 16) less the Ethernet header) and cuts what does not
 * fit; the PMD writes a sent one at AFP_TX_OFFSET, and wants mbufs that
 * hold a slot less that.  Jumbo slots are fewer per ring, 256: more
 * than the frames a peer sends ahead (WINDOW_BYTES, at most 117 frames
 * of 9000 bytes). */
#define AFP_RX_OFFSET 66
#define AFP_TX_OFFSET 32
#define AFP_DEFAULT_SLOT 2048
#define AFP_DEFAULT_SLOTS 512 /* the PMD's framecnt */
#define AFP_JUMBO_SLOTS 256

/* The MTU of interface `name`, 0 if unknown. */
static uint32_t iface_mtu(const char *name)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	if (strlen(name) >= sizeof(ifr.ifr_name))
		return 0;
	strcpy(ifr.ifr_name, name);
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc = s < 0 ? -1 : ioctl(s, SIOCGIFMTU, &ifr);
	if (s >= 0)
		close(s);
	return rc == 0 && ifr.ifr_mtu > 0 ? (uint32_t)ifr.ifr_mtu : 0;
}

/* The frames lane `name` carries: its interface's MTU, within --tp-opt
 * mtu and MTU_MAX (veth takes 65535). */
static uint32_t lane_mtu(const char *name, uint32_t cap)
{
	uint32_t mtu = iface_mtu(name);
	if (!mtu)
		mtu = RTE_ETHER_MTU;
	if (cap && cap < mtu)
		return cap;
	return mtu < MTU_MAX ? mtu : MTU_MAX;
}

/* The slot (framesz) that holds a frame of this MTU; 0: the default does. */
static uint32_t afp_slot_for(uint32_t mtu)
{
	uint32_t need = mtu + RTE_ETHER_HDR_LEN + AFP_RX_OFFSET;
	return need <= AFP_DEFAULT_SLOT ? 0 : (need + 1023) / 1024 * 1024;
}

/* An af_packet port's slot: its framesz devarg, or the PMD's default. */
static uint32_t afp_slot(const struct rte_eth_dev_info *di)
{
	const struct rte_devargs *da = di->device ? rte_dev_devargs(di->device) : NULL;
	const char *p = da && da->args ? strstr(da->args, "framesz=") : NULL;
	unsigned long v = p ? strtoul(p + strlen("framesz="), NULL, 10) : 0;
	return v > AFP_RX_OFFSET + LB_FRAME_ACK_LEN ? (uint32_t)v : AFP_DEFAULT_SLOT;
}

static int is_af_packet(const struct rte_eth_dev_info *di)
{
	return di->driver_name && strcmp(di->driver_name, "net_af_packet") == 0;
}

/* ---- af_xdp umem frames ------------------------------------------------ */

/* Lanes' PMD.  Without the eal option a lane is net_af_xdp (22.11) where
 * it can be: the kernel hands a received frame to our socket from the
 * interface's XDP program, before the skb stack, and takes a sent one
 * from the umem past the qdisc, one syscall per burst: 10-13% less CPU
 * per byte than af_packet on veth, where both copy each byte five times
 * (docs/benchmarks/bench-dpdk.md counts them; a zero-copy driver: two).
 * One queue per lane (queue 0, queue_count 1: a veth has one), our XDP
 * program (xdp_prog.bpf.c: our ethertype to the socket, the rest to the
 * kernel) attached to the lane's interface while the port is open (one
 * af_xdp job per interface: the next one's program is refused), copy or
 * zero-copy as the kernel chooses (veth: copy; force_copy is not given,
 * so a driver with zero-copy gets it).
 * The umem is the lane's mbuf pool, a chunk per mbuf, and the kernel
 * takes chunks of at most a page (XDP_UMEM_UNALIGNED_CHUNK_FLAG, no huge
 * pages): a frame, XDP_PACKET_HEADROOM and the mbuf's header fit in 4 KB,
 * so af_xdp frames stop at xdp_frame_max() (3456 bytes, MTU 3442; veth
 * refuses an XDP program on a link whose MTU passes a page less its
 * headroom, 3506, and the PMD does no multi-buffer frames).  pmd=auto
 * takes af_xdp for a lane whose MTU fits that, and af_packet when it
 * does not (jumbo frames: fewer frames per byte beat a cheaper path per
 * frame) or when the XDP program or socket cannot be had (another
 * program on the interface, an old kernel, no permission): open_lane
 * says so on stderr and probes af_packet. */
#define XDP_HEADROOM 256 /* the kernel's XDP_PACKET_HEADROOM before a received frame */

static int is_af_xdp(const struct rte_eth_dev_info *di)
{
	return di->driver_name && strcmp(di->driver_name, "net_af_xdp") == 0;
}

/* The mbuf data room for frames of `frame` bytes on af_xdp: the frame
 * after XDP_HEADROOM, at least the default room. */
static uint32_t xdp_room(uint32_t frame)
{
	uint32_t room = (frame + XDP_HEADROOM + 63) / 64 * 64;
	return room > RTE_MBUF_DEFAULT_DATAROOM ? room : RTE_MBUF_DEFAULT_DATAROOM;
}

/* Whether an mbuf of this room makes a umem chunk the kernel takes: the
 * pool's whole object (header, mbuf, headroom, room, padding) in a page. */
static int xdp_room_fits(uint32_t room)
{
	uint32_t elt = (uint32_t)sizeof(struct rte_mbuf) + RTE_PKTMBUF_HEADROOM + room;
	return rte_mempool_calc_obj_size(elt, 0, NULL) <= (uint32_t)getpagesize();
}

/* The largest frame (Ethernet header included) af_xdp lanes carry. */
static uint32_t xdp_frame_max(void)
{
	uint32_t frame = (uint32_t)getpagesize();
	while (frame > RTE_ETHER_MIN_LEN && !xdp_room_fits(xdp_room(frame)))
		frame -= 64;
	return frame;
}

/* The PMD lane `name` gets from --tp-opt pmd (see above). */
static enum pmd_choice lane_pmd(enum pmd_choice pmd, const char *name, uint32_t mtu_cap)
{
	if (pmd != PMD_AUTO)
		return pmd;
	return lane_mtu(name, mtu_cap) + RTE_ETHER_HDR_LEN <= xdp_frame_max() ? PMD_AF_XDP : PMD_AF_PACKET;
}

/* mbufs in a lane's pool: both rings of every port (af_packet's hold
 * none: it copies a frame into a new mbuf on receive and frees a sent one
 * once copied into its ring), the stash and the inject hold, bursts in
 * hand, and slack.  Jumbo mbufs are large: 1,700 of 64 KB are 110 MB. */
static unsigned pool_mbufs(uint32_t nports, int af_packet)
{
	unsigned rings = af_packet ? 0 : nports * (NB_RXD + NB_TXD);
	return rings + LB_RX_STASH_MAX + HOLD_MAX + 4 * BURST * nports + 1024;
}

/* ---- EAL --------------------------------------------------------------- */

static int has_arg(const char *eal, const char *const *names)
{
	for (; *names; names++) {
		const char *p = eal;
		size_t n = strlen(*names);
		while ((p = strstr(p, *names))) {
			int start = p == eal || p[-1] == ' ';
			/* "-l 0", "-l0", "--lcores=...", not "--log-level" for "-l" */
			int end = p[n] == 0 || p[n] == ' ' || p[n] == '=' || n == 2;
			if (start && end)
				return 1;
			p += n;
		}
	}
	return 0;
}

/* Lane l's net_af_packet device, "name,devargs", with ring slots for its
 * MTU (see afp_slot_for).  qdisc_bypass=0: our frames go through the
 * interface's qdisc, so a tc shaper there (scripts/cluster's tbf) limits
 * us as it limits TCP.  Returns the characters written (at most cap - 1). */
static size_t afp_devargs(const struct lb_tp_cfg *cfg, uint32_t l, uint32_t mtu_cap, char *s,
			  size_t cap)
{
	uint32_t slot = afp_slot_for(lane_mtu(cfg->lane_names[l], mtu_cap));
	size_t n = (size_t)snprintf(s, cap, "net_af_packet_l%u,iface=%s,qpairs=1,qdisc_bypass=0", l,
				    cfg->lane_names[l]);
	if (slot && n < cap)
		n += (size_t)snprintf(s + n, cap - n, ",framesz=%u,blocksz=%u,framecnt=%u", slot,
				      4 * slot, AFP_JUMBO_SLOTS);
	return n < cap ? n : cap - 1;
}

#ifdef LB_HAVE_XDP_PROG
extern const unsigned char lb_xdp_prog[]; /* xdp_prog.bpf.c's object (meson.build) */
extern const size_t lb_xdp_prog_len;
#endif

/* Our XDP program's object file while the ports open: the PMD takes a
 * path (checked at probe, loaded at rx queue setup).  "": none, the PMD's
 * own program then. */
static char xdp_prog_path[32];

/* Writes lb_xdp_prog to a file of our own for the PMD (xdp_prog_path). */
static void write_xdp_prog(void)
{
#ifdef LB_HAVE_XDP_PROG
	char path[] = "/tmp/lb-xdp-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return;
	int ok = write(fd, lb_xdp_prog, lb_xdp_prog_len) == (ssize_t)lb_xdp_prog_len;
	close(fd);
	if (ok)
		snprintf(xdp_prog_path, sizeof(xdp_prog_path), "%s", path);
	else
		unlink(path);
#endif
}

static void remove_xdp_prog(void)
{
	if (xdp_prog_path[0])
		unlink(xdp_prog_path);
	xdp_prog_path[0] = 0;
}

/* Lane l's net_af_xdp device: queue 0 of its interface, the only one the
 * lane uses, with our XDP program when there is one (xdp_prog.bpf.c: only
 * our ethertype to the socket).  (Its sends skip the interface's qdisc,
 * which af_xdp cannot be told to use: a shaper on the host's end of a
 * link does not see them, one on the far end -- scripts/cluster's switch
 * end -- does.) */
static size_t xdp_devargs(const struct lb_tp_cfg *cfg, uint32_t l, char *s, size_t cap)
{
	int n = snprintf(s, cap, "net_af_xdp_l%u,iface=%s,start_queue=0,queue_count=1%s%s", l,
			 cfg->lane_names[l], xdp_prog_path[0] ? ",xdp_prog=" : "", xdp_prog_path);
	return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* Without the eal option: each lane's device (lane_pmd), and memory for
 * the lanes' pools (128 MB holds standard frames; jumbo mbufs need more,
 * as does an af_xdp lane, whose mbufs are a page each).  Returns the
 * characters written to s (at most cap - 1). */
static size_t default_vdevs(const struct lb_tp_cfg *cfg, uint32_t mtu_cap, enum pmd_choice pmd,
			    char *s, size_t cap)
{
	size_t mb = 128, n = 0;
	for (uint32_t l = 0; l < cfg->lanes; l++) {
		uint32_t slot = afp_slot_for(lane_mtu(cfg->lane_names[l], mtu_cap));
		int xdp = lane_pmd(pmd, cfg->lane_names[l], mtu_cap) == PMD_AF_XDP;
		if (xdp) /* a page per mbuf, and more of them (the rings' too) */
			mb += (size_t)pool_mbufs(1, 0) * (size_t)getpagesize() * 5 / 4 >> 20;
		if (slot) /* the pool's mbufs (slot, headroom, header), and 25% */
			mb += (size_t)pool_mbufs(1, 1) * (slot + 512) * 5 / 4 >> 20;
	}
	n += (size_t)snprintf(s + n, cap - n, "--no-huge -m %zu --no-pci", mb);
	for (uint32_t l = 0; l < cfg->lanes && n + 8 < cap; l++) {
		n += (size_t)snprintf(s + n, cap - n, " --vdev ");
		if (lane_pmd(pmd, cfg->lane_names[l], mtu_cap) == PMD_AF_XDP)
			n += xdp_devargs(cfg, l, s + n, cap - n);
		else
			n += afp_devargs(cfg, l, mtu_cap, s + n, cap - n);
	}
	return n < cap ? n : cap - 1;
}

/* The user's eal option or our vdevs on the lanes, plus what every
 * process needs when the user did not say: a file prefix unique to the
 * job and rank, one core, quiet logs, no telemetry socket. */
static char *eal_args(const struct lb_tp_cfg *cfg, uint32_t mtu_cap, enum pmd_choice pmd)
{
	const char *eal = lb_tp_option(dpdk_options, &cfg->opt, "eal");
	size_t cap = (eal ? strlen(eal) : 0) + 256 * (cfg->lanes + 1) + 512;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	size_t n = 0;
	if (eal) {
		n += (size_t)snprintf(s + n, cap - n, "%s", eal);
	} else {
		n += default_vdevs(cfg, mtu_cap, pmd, s, cap);
	}
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	static const char *const prefix[] = { "--file-prefix", NULL };
	static const char *const cores[] = { "-l", "-c", "--lcores", NULL };
	static const char *const log[] = { "--log-level", NULL };
	static const char *const tel[] = { "--telemetry", "--no-telemetry", NULL };
	own_prefix = !has_arg(s, prefix);
	if (n < cap && own_prefix)
		n += (size_t)snprintf(s + n, cap - n, " --file-prefix lb-%016llx-r%u",
				      (unsigned long long)lb_frame_job_hash(cfg->token), cfg->rank);
	/* A rank outside a launched job has no token: every such process
	 * would share one runtime directory, and one's clean-up removed
	 * another's config under it ("Cannot init config"), seen with two
	 * dpdk_memif.sh at once.  The pid keeps them apart. */
	if (n < cap && own_prefix && (!cfg->token || !*cfg->token))
		n += (size_t)snprintf(s + n, cap - n, "-p%ld", (long)getpid());
	if (n < cap && !has_arg(s, cores))
		n += (size_t)snprintf(s + n, cap - n, " -l %ld", ncpu > 0 ? cfg->rank % ncpu : 0);
	if (n < cap && !has_arg(s, log))
		n += (size_t)snprintf(s + n, cap - n, " --log-level=error");
	if (n < cap && !has_arg(s, tel))
		n += (size_t)snprintf(s + n, cap - n, " --no-telemetry");
	return s;
}

/* rte_eal_init once per process.  It pins the calling thread to its main
 * lcore; the lane threads inherit the caller's mask, so restore it. */
static int eal_init(const struct lb_tp_cfg *cfg, uint32_t mtu_cap, enum pmd_choice pmd, char *err,
		    size_t len)
{
	if (eal_state)
		return lb_errf(err, len, "dpdk: EAL was already initialised in this process (one dpdk job per process)");
	eal_state = -1;
	char *args = eal_args(cfg, mtu_cap, pmd), *shown = args ? strdup(args) : NULL, *argv[128], *save = NULL;
	if (!shown) {
		free(args);
		return lb_errf(err, len, "dpdk: out of memory");
	}
	int argc = 0;
	argv[argc++] = "lanebench";
	for (char *t = strtok_r(args, " \t", &save); t && argc < 127; t = strtok_r(NULL, " \t", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	cpu_set_t mask;
	int have_mask = sched_getaffinity(0, sizeof(mask), &mask) == 0;
	int rc = rte_eal_init(argc, argv);
	if (have_mask)
		sched_setaffinity(0, sizeof(mask), &mask);
	if (rc < 0)
		lb_errf(err, len, "dpdk: EAL initialisation failed (%s) with arguments: %s",
			rte_strerror(rte_errno), shown);
	else
		eal_state = 1;
	free(args);
	free(shown);
	return rc < 0 ? -1 : 0;
}

/* ---- ports ------------------------------------------------------------- */

/* "..._l<L>" or "..._l<L>_p<P>": 1 (lane only), 2 (lane and peer), 0 no. */
static int port_name_lane(const char *name, uint32_t *lane, uint32_t *peer)
{
	for (const char *p = strstr(name, "_l"); p; p = strstr(p + 1, "_l")) {
		int used = 0;
		if (sscanf(p, "_l%u%n", lane, &used) == 1 && used && p[used] == 0)
			return 1;
		used = 0;
		if (sscanf(p, "_l%u_p%u%n", lane, peer, &used) == 2 && used && p[used] == 0)
			return 2;
	}
	return 0;
}

static int add_port(struct lb_tp *tp, uint32_t lane, uint16_t port, int per_peer,
		    uint32_t peer, const char *name, char *err, size_t len)
{
	if (lane >= tp->cfg.lanes)
		return lb_errf(err, len, "dpdk: port '%s' names lane %u but there are %u lanes",
			       name, lane, tp->cfg.lanes);
	struct lane *l = &tp->lanes[lane];
	if (l->nports && l->per_peer != per_peer)
		return lb_errf(err, len, "dpdk: lane %u ('%s') mixes per-peer and shared ports (port '%s')",
			       lane, l->name, name);
	if (l->nports == MAX_PORTS)
		return lb_errf(err, len, "dpdk: lane %u has more than %d ports", lane, MAX_PORTS);
	if (per_peer) {
		if (peer >= tp->cfg.size || peer == tp->cfg.rank || l->port_of[peer] >= 0)
			return lb_errf(err, len, "dpdk: port '%s': peer %u is not another rank of this %u-rank job, or has a port already",
				       name, peer, tp->cfg.size);
		l->port_of[peer] = port;
	} else if (l->nports) {
		return lb_errf(err, len, "dpdk: lane %u ('%s') has two shared ports (second: '%s')",
			       lane, l->name, name);
	}
	l->per_peer = per_peer;
	l->ports[l->nports++] = port;
	return 0;
}

/* net_af_packet on the lane's interface, its only port: pmd=auto's way
 * back from af_xdp. */
static int probe_af_packet(struct lb_tp *tp, struct lane *l, char *err, size_t len)
{
	char name[RTE_ETH_NAME_MAX_LEN], args[512];
	uint16_t port;
	l->xdp_fallback = 0;
	afp_devargs(&tp->cfg, l->index, tp->mtu_cap, args, sizeof(args));
	snprintf(name, sizeof(name), "net_af_packet_l%u", l->index);
	if (rte_dev_probe(args) != 0 || rte_eth_dev_get_port_by_name(name, &port) != 0)
		return lb_errf(err, len, "dpdk: lane %u ('%s'): neither af_xdp nor af_packet (%s) takes the interface",
			       l->index, l->name, args);
	l->ports[0] = port;
	l->nports = 1;
	return 0;
}

/* Assigns every port EAL made to a lane by its name (see the top). */
static int map_ports(struct lb_tp *tp, char *err, size_t len)
{
	uint16_t port, plain[MAX_PORTS];
	uint32_t nplain = 0;
	RTE_ETH_FOREACH_DEV(port) {
		char name[RTE_ETH_NAME_MAX_LEN];
		uint32_t lane = 0, peer = 0;
		if (rte_eth_dev_get_name_by_port(port, name))
			continue;
		int kind = port_name_lane(name, &lane, &peer);
		if (kind == 0 && nplain < MAX_PORTS)
			plain[nplain++] = port;
		else if (kind && add_port(tp, lane, port, kind == 2, peer, name, err, len))
			return -1;
	}
	if (nplain && nplain != tp->cfg.lanes)
		return lb_errf(err, len, "dpdk: %u ports without a _l<lane> name for %u lanes: name them (see --help) or give one per lane",
			       nplain, tp->cfg.lanes);
	for (uint32_t i = 0; i < nplain; i++) {
		char name[RTE_ETH_NAME_MAX_LEN] = "";
		rte_eth_dev_get_name_by_port(plain[i], name);
		if (add_port(tp, i, plain[i], 0, 0, name, err, len))
			return -1;
	}
	for (uint32_t l = 0; l < tp->cfg.lanes; l++) {
		struct lane *ln = &tp->lanes[l];
		if (!ln->nports && ln->xdp_fallback) { /* no af_xdp PMD, say */
			fprintf(stderr, "lanebench: rank %u: dpdk: lane %u ('%s'): no af_xdp port (see EAL's messages); af_packet instead\n",
				tp->cfg.rank, l, ln->name);
			if (probe_af_packet(tp, ln, err, len))
				return -1;
		}
		if (!ln->nports)
			return lb_errf(err, len, "dpdk: lane %u ('%s') has no port (none in the EAL arguments, or its probe failed: see EAL's messages)",
				       l, ln->name);
	}
	return 0;
}

/* ---- EAL's interrupt thread aborting ----------------------------------- */

/* PMDs handle their control events in EAL's interrupt thread, and a fault
 * there ends in rte_panic -> abort() with EAL's own words only ("Error
 * adding fd 24 epoll_ctl, Operation not permitted"): no rank, no device.
 * The one seen (DPDK 22.11's memif server: a client connection closed
 * before it was accepted leaves its closed fd in the interrupt list) is
 * DPDK's and cannot be caught; on_abort adds one line saying whose it was. */
static char abort_line[320];
static size_t abort_len;

static void on_abort(int sig)
{
	char thread[16] = "";
	if (prctl(PR_GET_NAME, thread) == 0 && strncmp(thread, "eal-intr", 8) == 0)
		(void)!write(STDERR_FILENO, abort_line, abort_len);
	raise(sig); /* SA_RESETHAND: the default action now, a core as before */
}

/* Prepares on_abort's line (naming the rank and its ports' PMDs, which
 * cannot be looked up safely in a signal handler) and installs it. */
static void name_eal_aborts(const struct lb_tp *tp)
{
	char pmds[160] = "";
	size_t n = 0;
	uint16_t port;
	RTE_ETH_FOREACH_DEV(port) {
		struct rte_eth_dev_info di;
		if (rte_eth_dev_info_get(port, &di) == 0 && di.driver_name && !strstr(pmds, di.driver_name) &&
		    n < sizeof(pmds))
			n += (size_t)snprintf(pmds + n, sizeof(pmds) - n, "%s%s", n ? "," : "", di.driver_name);
	}
	int w = snprintf(abort_line, sizeof(abort_line),
			 "lanebench: rank %u: DPDK's interrupt thread aborted (PMD %s): a fault of DPDK's (see its message above), not of lanebench's frames\n",
			 tp->cfg.rank, *pmds ? pmds : "none");
	abort_len = w < 0 ? 0 : (size_t)w < sizeof(abort_line) ? (size_t)w : sizeof(abort_line) - 1;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_abort;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGABRT, &sa, NULL);
}

/* Largest frame of a port, Ethernet header included, within --tp-opt mtu;
 * *room: the mbuf data room its rx ring wants.  af_packet: its
 * interface's MTU within what its ring slots hold, mbufs of a slot.
 * Others: the port's MTU within what it receives (max_rx_pktlen): jumbo
 * frames on a port configured with a jumbo MTU whose PMD takes them (memif
 * reports 1518 in DPDK 22.11), mbufs of that and some. */
static uint32_t port_frame(uint16_t port, const struct rte_eth_dev_info *di, uint32_t mtu_cap,
			   uint32_t *room)
{
	char name[IF_NAMESIZE];
	uint32_t mtu = RTE_ETHER_MTU, f;
	if (is_af_packet(di)) {
		uint32_t slot = afp_slot(di);
		if (di->if_index && if_indextoname(di->if_index, name))
			mtu = lane_mtu(name, 0);
		f = mtu + RTE_ETHER_HDR_LEN;
		f = f < slot - AFP_RX_OFFSET ? f : slot - AFP_RX_OFFSET;
		*room = slot;
	} else if (is_af_xdp(di)) { /* the PMD knows no MTU: the interface's */
		if (di->if_index && if_indextoname(di->if_index, name))
			mtu = lane_mtu(name, 0);
		f = mtu + RTE_ETHER_HDR_LEN;
		f = f < xdp_frame_max() ? f : xdp_frame_max();
		*room = xdp_room(mtu_cap && mtu_cap + RTE_ETHER_HDR_LEN < f ? mtu_cap + RTE_ETHER_HDR_LEN : f);
	} else {
		uint16_t m;
		if (rte_eth_dev_get_mtu(port, &m) == 0 && m >= MTU_MIN)
			mtu = m;
		f = mtu + RTE_ETHER_HDR_LEN;
		if (di->max_rx_pktlen && di->max_rx_pktlen < f)
			f = di->max_rx_pktlen;
		*room = di->max_rx_pktlen < 10240 ? di->max_rx_pktlen + 512 : 10240;
	}
	if (mtu_cap && mtu_cap + RTE_ETHER_HDR_LEN < f)
		f = mtu_cap + RTE_ETHER_HDR_LEN;
	return f;
}

static void attached_free(void *addr, void *opaque)
{
	(void)addr, (void)opaque; /* the registered buffer is the job's */
}

/* af_packet copies every frame into its tx ring, segment by segment, and
 * frees the mbuf at once: a DATA frame's payload can be an mbuf attached
 * to the registered buffer instead of a copy of it (one of a frame's four
 * user-space copies).  PMDs that DMA later, or take one segment, keep the
 * copy. */
static int make_attach_pool(struct lane *l, int sock, char *err, size_t len)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned n = 4 * BURST * l->nports + 1024;
	snprintf(name, sizeof(name), "lb_attach%u", l->index);
	l->attach_pool = rte_pktmbuf_pool_create_by_ops(name, n, 0, 0, 0, sock, "stack");
	if (!l->attach_pool)
		l->attach_pool = rte_pktmbuf_pool_create(name, n, 0, 0, 0, sock);
	if (!l->attach_pool)
		return lb_errf(err, len, "dpdk: lane %u ('%s'): cannot make a pool of %u mbufs: %s",
			       l->index, l->name, n, rte_strerror(rte_errno));
	l->attached.free_cb = attached_free;
	l->attached.fcb_opaque = NULL;
	rte_mbuf_ext_refcnt_set(&l->attached, 1);
	return 0;
}

static int make_pool(struct lane *l, int af_packet, char *err, size_t len)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	int socket = rte_eth_dev_socket_id(l->ports[0]);
	unsigned n = pool_mbufs(l->nports, af_packet);
	snprintf(name, sizeof(name), "lb_lane%u", l->index);
	uint16_t room = (uint16_t)(l->data_room + RTE_PKTMBUF_HEADROOM);
	int sock = socket < 0 ? SOCKET_ID_ANY : socket;
	/* LIFO ("stack"): the mbufs freed last are reused first, so a lane
	 * touches only the few it has in flight, not the whole pool in turn as
	 * the default FIFO ring does (the lane threads are not EAL lcores:
	 * no per-core cache).  With 64 KB mbufs the ring's turn faulted in
	 * 110 MB per lane: page faults were 7% of a rank's samples. */
	l->pool = rte_pktmbuf_pool_create_by_ops(name, n, 0, 0, room, sock, "stack");
	if (!l->pool)
		l->pool = rte_pktmbuf_pool_create(name, n, 0, 0, room, sock);
	if (!l->pool)
		return lb_errf(err, len, "dpdk: lane %u ('%s'): cannot make a pool of %u mbufs of %u bytes: %s (raise -m in --tp-opt eal=...)",
			       l->index, l->name, n, l->data_room, rte_strerror(rte_errno));
	return af_packet ? make_attach_pool(l, sock, err, len) : 0;
}

static int is_memif(uint16_t port, struct rte_eth_dev_info *di)
{
	return rte_eth_dev_info_get(port, di) == 0 && di->driver_name &&
	       strstr(di->driver_name, "memif") != NULL;
}

/* A memif client port (devargs "role=client"): it connects once, on start. */
static int memif_client(uint16_t port)
{
	struct rte_eth_dev_info di;
	if (!is_memif(port, &di) || !di.device)
		return 0;
	const struct rte_devargs *da = rte_dev_devargs(di.device);
	return da && da->args && strstr(da->args, "role=client") != NULL;
}

static int start_port(struct lane *l, uint32_t i, char *err, size_t len)
{
	struct rte_eth_conf conf;
	uint16_t port = l->ports[i];
	memset(&conf, 0, sizeof(conf));
	int socket = rte_eth_dev_socket_id(port);
	unsigned sock = (unsigned)(socket < 0 ? SOCKET_ID_ANY : socket);
	const char *step = "configure";
	int rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc == 0) {
		step = "rx queue setup";
		rc = rte_eth_rx_queue_setup(port, 0, NB_RXD, sock, NULL, l->pool);
	}
	if (rc == 0) {
		step = "tx queue setup";
		rc = rte_eth_tx_queue_setup(port, 0, NB_TXD, sock, NULL);
	}
	if (rc < 0) {
		char name[RTE_ETH_NAME_MAX_LEN] = "";
		rte_eth_dev_get_name_by_port(port, name);
		return lb_errf(err, len, "dpdk: lane %u ('%s'): port '%s': %s failed: %s", l->index,
			       l->name, name, step, rte_strerror(-rc));
	}
	/* A memif client connects on start, and its server accepts the
	 * connection only once its own port has started (before, it answers
	 * "ID not found" and the client stays down): clients start in
	 * connect, when every rank has opened its ports (links_down).
	 * Frames go to the peer port's own MAC: no promiscuous mode. */
	l->started[i] = !memif_client(port) && rte_eth_dev_start(port) == 0;
	return 0;
}

/* The packet socket of this process bound to interface ifindex, if there
 * is exactly one: found among our open fds, since the PMD does not hand
 * it out (it offers no rx interrupt either). */
static int packet_socket(int ifindex)
{
	DIR *d = opendir("/proc/self/fd");
	int found = -1, n = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		int domain = 0;
		struct sockaddr_ll sa;
		socklen_t dl = sizeof(domain), sl = sizeof(sa);
		if (*end || end == e->d_name || fd == dirfd(d) ||
		    getsockopt((int)fd, SOL_SOCKET, SO_DOMAIN, &domain, &dl) || domain != AF_PACKET ||
		    getsockname((int)fd, (struct sockaddr *)&sa, &sl) || sa.sll_ifindex != ifindex)
			continue;
		found = (int)fd;
		n++;
	}
	if (d)
		closedir(d);
	return n == 1 ? found : -1;
}

#ifndef AF_XDP
#define AF_XDP 44
#endif

/* The AF_XDP socket of this process that no lane has taken, if there is
 * exactly one: the one the af_xdp PMD made for the lane that started its
 * port last (lanes open one after another).  An XDP socket has no name
 * to tell its interface by. */
static int xdp_socket(const struct lb_tp *tp)
{
	DIR *d = opendir("/proc/self/fd");
	int found = -1, n = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		int domain = 0, taken = 0;
		socklen_t dl = sizeof(domain);
		if (*end || end == e->d_name || fd == dirfd(d) ||
		    getsockopt((int)fd, SOL_SOCKET, SO_DOMAIN, &domain, &dl) || domain != AF_XDP)
			continue;
		for (uint32_t l = 0; l < tp->cfg.lanes; l++)
			taken |= tp->lanes[l].wake_fd == fd;
		if (!taken) {
			found = (int)fd;
			n++;
		}
	}
	if (d)
		closedir(d);
	return n == 1 ? found : -1;
}

/* arm()'s fd: on a lane of one net_af_packet port (one queue pair), the
 * PMD's socket, whose rx ring makes it readable while a frame waits --
 * level-triggered, so nothing that arrived before the caller sleeps is
 * missed.  Sleeping on it instead of napping LB_IDLE_NAP between polls
 * took the naps' wakeups and timers (~20% of a rank's perf samples, 8 x 2
 * broadcasts; ~12% less CPU in all) off the machine.  On a lane of one
 * net_af_xdp port, its XDP socket, readable while its rx ring holds a
 * frame (level-triggered too).  Other PMDs raise no event: -1. */
static int wake_fd(const struct lb_tp *tp, const struct lane *l)
{
	struct rte_eth_dev_info di;
	if (l->nports != 1 || rte_eth_dev_info_get(l->ports[0], &di) != 0 || di.if_index == 0 ||
	    di.nb_rx_queues > 1)
		return -1;
	if (is_af_xdp(&di))
		return xdp_socket(tp);
	return is_af_packet(&di) ? packet_socket((int)di.if_index) : -1;
}

/* Frames in flight per peer for frames of frame_max bytes: WINDOW_BYTES
 * of payload, within [WINDOW_MIN, WINDOW_MAX]. */
static uint32_t lane_window(uint32_t frame_max)
{
	uint32_t w = WINDOW_BYTES / (frame_max - LB_FRAME_OVERHEAD);
	return w < WINDOW_MIN ? WINDOW_MIN : w > WINDOW_MAX ? WINDOW_MAX : w;
}

/* An af_packet port's socket may hold in the kernel, unsent, as many bytes
 * as its tx ring (slots of `slot` bytes).  With the default send buffer
 * (wmem_default, 208 KiB: three 64 KB frames) the kernel stops taking
 * ring frames once that much waits in the shaper's queue, and the frames
 * left behind go only at the PMD's next send call: after the peer's ack
 * or our retransmission timeout, which the window's last frames wait for
 * (a 1 MiB p2p message took 200 ms at 700 Mbit/s with 64 KB frames, 60 ms
 * with 9 KB ones).  SO_SNDBUFFORCE (root) passes wmem_max. */
static void widen_sndbuf(int fd, uint32_t slot)
{
	int bytes = (int)((slot > AFP_DEFAULT_SLOT ? AFP_JUMBO_SLOTS : AFP_DEFAULT_SLOTS) * slot);
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof(bytes)) != 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
}

/* rte_eth_stats' trouble, which lane_counters reports by these names; the
 * generic xstats that repeat them (and their per-queue parts) are left
 * out of the xstats it reports. */
static const char *const eth_stat_names[] = { "xstat:ierrors", "xstat:oerrors", "xstat:imissed",
					      "xstat:rx_nombuf" };
#define NETH_STATS 4
#define XSTATS_MAX (LB_PORT_COUNTERS_MAX - NCOUNTERS - NETH_STATS)

/* An xstat whose name says trouble and that rte_eth_stats does not
 * already give. */
static int xstat_wanted(const char *name)
{
	static const char *const trouble[] = { "err", "drop", "discard", "miss", "crc", "fail" };
	static const char *const generic[] = { "rx_missed_errors", "rx_errors", "tx_errors",
					       "rx_mbuf_allocation_errors" };
	unsigned q;
	int end = 0;
	if (sscanf(name, "rx_q%u_errors%n", &q, &end) == 1 && end > 0 && !name[end])
		return 0;
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (!strcmp(name, generic[i]))
			return 0;
	for (size_t i = 0; i < sizeof(trouble) / sizeof(trouble[0]); i++)
		if (strstr(name, trouble[i]))
			return 1;
	return 0;
}

/* The xstats lane_counters reports, chosen once so that every call has
 * the same names: those of the lane's first port that say trouble (up to
 * XSTATS_MAX), looked up by name on each of its ports (a lane's ports are
 * of one PMD, normally).  0, or -1 out of memory. */
static int choose_xstats(struct lane *l)
{
	int n = rte_eth_xstats_get_names(l->ports[0], NULL, 0);
	struct rte_eth_xstat_name *names = n > 0 ? calloc((size_t)n, sizeof(*names)) : NULL;
	if (n <= 0 || !names || rte_eth_xstats_get_names(l->ports[0], names, (unsigned)n) != n) {
		free(names);
		return n > 0 && !names ? -1 : 0;
	}
	l->xnames = calloc(XSTATS_MAX, sizeof(*l->xnames));
	l->xids = calloc((size_t)l->nports * XSTATS_MAX, sizeof(*l->xids));
	for (int i = 0; l->xnames && l->xids && i < n && l->nx < XSTATS_MAX; i++) {
		if (!xstat_wanted(names[i].name))
			continue;
		snprintf(l->xnames[l->nx], sizeof(l->xnames[0]), "xstat:%s", names[i].name);
		for (uint32_t p = 0; p < l->nports; p++)
			if (rte_eth_xstats_get_id_by_name(l->ports[p], names[i].name,
							  &l->xids[p * XSTATS_MAX + l->nx]))
				l->xids[p * XSTATS_MAX + l->nx] = UINT64_MAX;
		l->nx++;
	}
	free(names);
	return l->xnames && l->xids ? 0 : -1;
}

/* The lane's ports and pool: frame size, pool, started ports, xstats,
 * wake fd.  An af_xdp port that does not start fails (see open_lane). */
static int open_ports(struct lb_tp *tp, struct lane *l, char *err, size_t len)
{
	struct rte_eth_dev_info di;
	int af_packet = 1;
	uint32_t mtu_cap = tp->mtu_cap;
	l->frame_max = UINT32_MAX;
	l->data_room = RTE_MBUF_DEFAULT_DATAROOM;
	for (uint32_t i = 0; i < l->nports; i++) {
		if (rte_eth_dev_info_get(l->ports[i], &di) != 0)
			return lb_errf(err, len, "dpdk: lane %u: no device info for port %u", l->index, l->ports[i]);
		af_packet &= is_af_packet(&di);
		uint32_t room, f = port_frame(l->ports[i], &di, mtu_cap, &room);
		l->frame_max = f < l->frame_max ? f : l->frame_max;
		l->data_room = room > l->data_room ? room : l->data_room;
		if (getenv("LB_DPDK_DEBUG"))
			fprintf(stderr, "dpdk: lane %u port %u (%s): max_rx_pktlen %u min_rx_bufsize %u frame %u room %u\n",
				l->index, l->ports[i], di.driver_name, di.max_rx_pktlen,
				di.min_rx_bufsize, f, room);
	}
	if (l->frame_max < LB_FRAME_ACK_LEN + 64)
		return lb_errf(err, len, "dpdk: lane %u ('%s'): frames of %u bytes are too small",
			       l->index, l->name, l->frame_max);
	l->window = lane_window(l->frame_max);
	if (make_pool(l, af_packet, err, len))
		return -1;
	for (uint32_t i = 0; i < l->nports; i++) {
		if (start_port(l, i, err, len))
			return -1;
		if (!l->started[i] && rte_eth_dev_info_get(l->ports[i], &di) == 0 && is_af_xdp(&di))
			return lb_errf(err, len, "dpdk: lane %u ('%s'): the af_xdp port did not start",
				       l->index, l->name);
	}
	rte_eth_macaddr_get(l->ports[0], &l->mac);
	if (choose_xstats(l))
		return lb_errf(err, len, "dpdk: out of memory");
	l->wake_fd = wake_fd(tp, l);
	if (l->wake_fd >= 0 && af_packet)
		widen_sndbuf(l->wake_fd, l->data_room);
	if (getenv("LB_DPDK_DEBUG"))
		fprintf(stderr, "dpdk: lane %u: wake fd %d\n", l->index, l->wake_fd);
	return 0;
}

/* pmd=auto's way back (see "Lanes' PMD"): the lane's af_xdp port and its
 * pool go, and net_af_packet takes the interface. */
static int xdp_to_af_packet(struct lb_tp *tp, struct lane *l, char *err, size_t len)
{
	char name[RTE_ETH_NAME_MAX_LEN] = "";
	uint16_t port = l->ports[0];
	rte_eth_dev_get_name_by_port(port, name);
	if (l->started[0])
		rte_eth_dev_stop(port);
	l->started[0] = 0;
	rte_eth_dev_close(port);
	(void)rte_eal_hotplug_remove("vdev", name);
	rte_mempool_free(l->pool);
	l->pool = NULL;
	l->nports = 0;
	return probe_af_packet(tp, l, err, len);
}

/* The lane's ports; an af_xdp lane that pmd=auto chose and that fails to
 * open (the XDP program refused, say) is an af_packet lane instead, and
 * says why on stderr. */
static int open_lane(struct lb_tp *tp, struct lane *l, char *err, size_t len)
{
	int rc = open_ports(tp, l, err, len);
	if (rc == 0 || !l->xdp_fallback)
		return rc;
	fprintf(stderr, "lanebench: rank %u: %s; af_packet instead\n", tp->cfg.rank, err);
	if (xdp_to_af_packet(tp, l, err, len))
		return -1;
	return open_ports(tp, l, err, len);
}

static int alloc_lanes(struct lb_tp *tp)
{
	tp->lanes = calloc(tp->cfg.lanes, sizeof(*tp->lanes));
	if (!tp->lanes)
		return -1;
	for (uint32_t i = 0; i < tp->cfg.lanes; i++) {
		struct lane *l = &tp->lanes[i];
		pthread_mutex_init(&l->mu, NULL);
		l->index = i;
		l->wake_fd = -1;
		l->name = tp->cfg.lane_names[i];
		l->rng = 0x9e3779b97f4a7c15ull * (tp->cfg.rank * 64 + i + 1);
		l->port_of = malloc(tp->cfg.size * sizeof(*l->port_of));
		l->chan_of = malloc(tp->cfg.size * sizeof(*l->chan_of));
		if (!l->port_of || !l->chan_of)
			return -1;
		memset(l->port_of, 0xff, tp->cfg.size * sizeof(*l->port_of));
		memset(l->chan_of, 0xff, tp->cfg.size * sizeof(*l->chan_of));
	}
	return 0;
}

/* EAL with the lanes' ports, each lane's opened. */
static int open_ports_of_lanes(struct lb_tp *tp, char *err, size_t len)
{
	if (eal_init(&tp->cfg, tp->mtu_cap, tp->pmd, err, len) || map_ports(tp, err, len))
		return -1;
	name_eal_aborts(tp);
	for (uint32_t l = 0; l < tp->cfg.lanes; l++)
		if (open_lane(tp, &tp->lanes[l], err, len))
			return -1;
	return 0;
}

static int dpdk_open(const struct lb_tp_cfg *cfg, struct lb_tp **out, char *err, size_t len)
{
	*out = NULL;
	struct lb_tp *tp = calloc(1, sizeof(*tp));
	if (!tp)
		return lb_errf(err, len, "dpdk: out of memory");
	*out = tp;
	tp->cfg = *cfg;
	tp->expect = (struct lb_frame_expect){ .job = lb_frame_job_hash(cfg->token),
					       .rank = cfg->rank, .size = cfg->size };
	if (parse_inject(&tp->inj, lb_tp_option(dpdk_options, &cfg->opt, "inject"), err, len))
		return LB_EINPUT;
	if (alloc_lanes(tp))
		return lb_errf(err, len, "dpdk: out of memory");
	if (parse_mtu(lb_tp_option(dpdk_options, &cfg->opt, "mtu"), &tp->mtu_cap, err, len) ||
	    parse_silence(lb_tp_option(dpdk_options, &cfg->opt, "silence"), cfg->timeout,
			  &tp->silence_max, err, len) ||
	    parse_pmd(lb_tp_option(dpdk_options, &cfg->opt, "pmd"), &tp->pmd, err, len))
		return LB_EINPUT;
	int ours = !lb_tp_option(dpdk_options, &cfg->opt, "eal");
	for (uint32_t l = 0; l < cfg->lanes; l++)
		tp->lanes[l].xdp_fallback = ours && tp->pmd == PMD_AUTO &&
					    lane_pmd(PMD_AUTO, cfg->lane_names[l], tp->mtu_cap) == PMD_AF_XDP;
	quiet_xdp_libs();
	if (ours && tp->pmd != PMD_AF_PACKET)
		write_xdp_prog();
	int rc = open_ports_of_lanes(tp, err, len);
	remove_xdp_prog(); /* loaded (or not) by now */
	return rc;
}

static int dpdk_local_address(struct lb_tp *tp, uint32_t lane, void *addr)
{
	memcpy(addr, &tp->lanes[lane].mac, sizeof(struct rte_ether_addr));
	return 0;
}

/* ---- queues ------------------------------------------------------------ */

static struct xfer *queue_at(struct lb_ring *q, uint32_t i)
{
	return lb_ring_at(q, i, sizeof(struct xfer));
}

static void complete(struct lane *l, const struct chan *ch, uint32_t id, uint8_t kind)
{
	struct comps *d = &l->done;
	if (d->n == d->cap) {
		uint32_t cap = d->cap ? d->cap * 2 : 64;
		struct done *c = realloc(d->c, cap * sizeof(*c));
		if (!c)
			abort(); /* a lost completion would hang the job silently */
		d->c = c;
		d->cap = cap;
	}
	d->c[d->n++] = (struct done){ { id, kind }, ch->rank };
}

/* ---- connections ------------------------------------------------------- */

static int link_down(uint16_t port)
{
	struct rte_eth_link link;
	return rte_eth_link_get_nowait(port, &link) == 0 && link.link_status == RTE_ETH_LINK_DOWN;
}

/* Counts ports still down, naming the first in `first`; with `kick`,
 * starts the ports not started yet: memif clients (start_port leaves
 * them to connect, when every rank has opened its ports) and any port
 * whose start failed.  A started port is never stopped to retry: a memif
 * client whose handshake is merely slow (its server's interrupt thread
 * descheduled on a busy machine) would close a connection the server
 * has yet to accept, and DPDK 22.11's server, failing to send its hello
 * on it ("sendmsg fail: Broken pipe"), closes the fd but leaves it in
 * EAL's interrupt list: the fd's next user panics EAL's interrupt thread
 * ("Error adding fd N epoll_ctl, Operation not permitted") or runs the
 * handler on freed memory. */
static uint32_t links_down(struct lb_tp *tp, int kick, char *first, size_t len)
{
	uint32_t down = 0;
	for (uint32_t l = 0; l < tp->cfg.lanes; l++)
		for (uint32_t i = 0; i < tp->lanes[l].nports; i++) {
			uint16_t port = tp->lanes[l].ports[i];
			if (!link_down(port))
				continue;
			if (!down++ && first)
				rte_eth_dev_get_name_by_port(port, first);
			if (kick && !tp->lanes[l].started[i])
				tp->lanes[l].started[i] = rte_eth_dev_start(port) == 0;
		}
	return down;
}

static int add_chan(struct lb_tp *tp, struct lane *l, uint32_t peer, const uint8_t *all,
		    char *err, size_t len)
{
	if (peer >= tp->cfg.size || peer == tp->cfg.rank)
		return lb_errf(err, len, "dpdk: lane %u: rank %u is not a peer", l->index, peer);
	if (l->per_peer && l->port_of[peer] < 0)
		return lb_errf(err, len, "dpdk: lane %u ('%s'): no port for rank %u (a vdev named ..._l%u_p%u)",
			       l->index, l->name, peer, l->index, peer);
	struct chan *c = &l->chans[l->nchans];
	memset(c, 0, sizeof(*c));
	c->rank = peer;
	c->port = l->per_peer ? (uint16_t)l->port_of[peer] : l->ports[0];
	memcpy(&c->mac, all + ((size_t)peer * tp->cfg.lanes + l->index) * LB_TP_ADDR_MAX,
	       sizeof(c->mac));
	lb_rel_tx_init(&c->tx, l->window, LB_REL_MIN_RTO, LB_REL_MAX_RTO);
	lb_rx_chan_init(&c->rx);
	l->chan_of[peer] = (int32_t)l->nchans++;
	return 0;
}

static void *service_main(void *arg);

static int dpdk_connect(struct lb_tp *tp, const uint8_t *all, const struct lb_tp_peers *peers,
			char *err, size_t len)
{
	for (uint32_t li = 0; li < tp->cfg.lanes; li++) {
		struct lane *l = &tp->lanes[li];
		l->chans = calloc(peers->npeers[li] + 1, sizeof(*l->chans));
		if (!l->chans)
			return lb_errf(err, len, "dpdk: out of memory");
		for (uint32_t i = 0; i < peers->npeers[li]; i++)
			if (add_chan(tp, l, peers->peers[li][i], all, err, len))
				return -1;
	}
	/* memif links come up when both ends exist; frames sent before are
	 * lost.  Round 1 starts the memif clients, every 30th retries a start
	 * that failed (the server's socket not there yet). */
	double t0 = now(), wait = tp->cfg.timeout < LINK_WAIT ? tp->cfg.timeout : LINK_WAIT;
	for (int round = 1; links_down(tp, round % 30 == 1, NULL, 0) && now() < t0 + wait; round++)
		nap(10e-3);
	char name[RTE_ETH_NAME_MAX_LEN] = "";
	uint32_t down = links_down(tp, 0, name, sizeof(name));
	if (down)
		return lb_errf(err, len, "dpdk: %u port(s) of this rank stayed down for %.0f s, first '%s' (peer not started, or its link or socket not made?)",
			       down, wait, name);
	int e = pthread_create(&tp->service, NULL, service_main, tp);
	if (e)
		return lb_errf(err, len, "dpdk: cannot start the service thread: %s", strerror(e));
	tp->service_started = 1;
	return 0;
}

static int dpdk_register(struct lb_tp *tp, void *buf, size_t len, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	tp->buf = buf;
	tp->buflen = len;
	tp->expect.buflen = len;
	return 0;
}

/* ---- transmit ---------------------------------------------------------- */

/* A DATA frame of seq, rebuilt from the buffer (also for retransmission). */
/* An mbuf on buf[off, off + len) of the registered buffer (see
 * make_attach_pool), or NULL. */
static struct rte_mbuf *payload_mbuf(struct lane *l, uint8_t *buf, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(l->attach_pool);
	if (!m)
		return NULL;
	rte_mbuf_ext_refcnt_update(&l->attached, 1);
	rte_pktmbuf_attach_extbuf(m, buf, RTE_BAD_IOVA, (uint16_t)len, &l->attached);
	rte_pktmbuf_append(m, (uint16_t)len);
	return m;
}

static struct rte_mbuf *data_frame(struct lb_tp *tp, struct lane *l, struct chan *c, uint32_t seq)
{
	const struct lb_rel_frame *rf = lb_rel_tx_frame(&c->tx, seq);
	struct rte_mbuf *m = rf ? rte_pktmbuf_alloc(l->pool) : NULL;
	if (!m)
		return NULL;
	int attach = l->attach_pool && rf->len > 0;
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(LB_FRAME_OVERHEAD + (attach ? 0 : rf->len)));
	struct rte_mbuf *pay = attach && p ? payload_mbuf(l, tp->buf + rf->offset, rf->len) : NULL;
	if (!p || (attach && (!pay || rte_pktmbuf_chain(m, pay) != 0))) {
		rte_pktmbuf_free(m); /* frames fit the pool's data room: out of mbufs */
		rte_pktmbuf_free(pay);
		return NULL;
	}
	struct lb_frame f = { .type = LB_FRAME_DATA, .lane = (uint16_t)l->index, .src = tp->cfg.rank,
			      .dst = c->rank, .job = tp->expect.job, .seq = seq, .msg = rf->msg,
			      .offset = rf->offset, .len = rf->len };
	memcpy(f.dst_mac, &c->mac, 6);
	memcpy(f.src_mac, &l->mac, 6);
	size_t h = lb_frame_encode(&f, p);
	if (!attach)
		memcpy(p + h, tp->buf + rf->offset, rf->len);
	return m;
}

static void send_ack(struct lb_tp *tp, struct lane *l, struct chan *c, double t)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(l->pool);
	if (!m)
		return; /* the next frame from the peer asks again */
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, LB_FRAME_ACK_LEN);
	if (!p) {
		rte_pktmbuf_free(m);
		return;
	}
	struct lb_frame f = { .type = LB_FRAME_ACK, .lane = (uint16_t)l->index, .src = tp->cfg.rank,
			      .dst = c->rank, .job = tp->expect.job };
	memcpy(f.dst_mac, &c->mac, 6);
	memcpy(f.src_mac, &l->mac, 6);
	f.seq = lb_rel_rx_ack(&c->rx.rel, f.sack);
	lb_frame_encode(&f, p);
	if (rte_eth_tx_burst(c->port, 0, &m, 1) == 1) {
		l->cnt.acks_sent++;
		c->ack_now = 0;
		c->unacked = 0;
		c->sent_at = t;
	} else {
		rte_pktmbuf_free(m);
	}
}

/* Cuts the posted sends into new frames while the window has room. */
static int frame_sends(struct lane *l, struct chan *c, uint32_t *seqs, int n)
{
	uint32_t payload = l->frame_max - LB_FRAME_OVERHEAD;
	struct xfer *x;
	while (n < BURST && (x = queue_at(&c->sendq, c->framed))) {
		if (x->done == x->len) {
			x->end_seq = c->tx.next;
			c->framed++;
			continue;
		}
		if (!lb_rel_tx_can_send(&c->tx))
			break;
		uint64_t k = x->len - x->done < payload ? x->len - x->done : payload;
		struct lb_rel_frame rf = { .offset = x->off + x->done, .len = (uint32_t)k,
					   .msg = c->send_msg + c->framed };
		seqs[n++] = lb_rel_tx_push(&c->tx, &rf);
		x->done += k;
	}
	return n;
}

/* Retransmissions due, then new frames; one burst per call. */
static void transmit(struct lb_tp *tp, struct lane *l, struct chan *c, double t)
{
	uint32_t seqs[BURST];
	struct rte_mbuf *m[BURST];
	int n = lb_rel_tx_due(&c->tx, t, seqs, BURST), k = 0;
	n = frame_sends(l, c, seqs, n);
	for (int i = 0; i < n; i++)
		if ((m[k] = data_frame(tp, l, c, seqs[i])))
			seqs[k++] = seqs[i];
	uint16_t sent = k ? rte_eth_tx_burst(c->port, 0, m, (uint16_t)k) : 0;
	c->sent_at = sent ? t : c->sent_at;
	for (uint16_t i = 0; i < sent; i++) {
		l->cnt.frames_sent++;
		l->cnt.frames_retransmitted += (uint64_t)lb_rel_tx_sent(&c->tx, seqs[i], t);
	}
	for (int i = sent; i < k; i++) /* the queue was full: due again next time */
		rte_pktmbuf_free(m[i]);
}

/* Sends complete in order once every frame of theirs is acknowledged. */
static void complete_sends(struct lane *l, struct chan *c)
{
	struct xfer *x;
	while (c->framed && (x = queue_at(&c->sendq, 0)) &&
	       (int32_t)(c->tx.base - x->end_seq) >= 0) {
		complete(l, c, x->id, LB_XFER_SEND);
		lb_ring_pop(&c->sendq);
		c->framed--;
		c->send_msg++;
	}
}

/* ---- receive ----------------------------------------------------------- */

static void drop(struct lane *l, enum drop why)
{
	l->cnt.dropped[why]++;
}

static void complete_recvs(struct lane *l, struct chan *c)
{
	uint32_t id;
	while (lb_rx_complete(&c->rx, &id))
		complete(l, c, id, LB_XFER_RECV);
}

/* Acks are batched, one per quarter window of frames taken (the lane's
 * window: the peer's is the same when both lanes have one MTU) or ACK_DELAY after
 * the first of them, unless the sender needs one now (`urgent`): a
 * receive completed (its send completes on our ack), or a frame came out
 * of order or filled a hole (the ack's SACK shows what is missing).  An
 * ack per receive burst was 1 frame in 10 through the kernel's path. */
static void ack_later(const struct lane *l, struct chan *c, int urgent, double t)
{
	if (c->unacked++ == 0)
		c->unacked_since = t;
	c->ack_now |= urgent || c->unacked >= l->window / 4;
}

/* A DATA frame: into its posted receive, or held (returns 1) until that
 * receive is posted. */
static int on_data(struct lb_tp *tp, struct lane *l, struct chan *c, const struct lb_frame *f)
{
	uint32_t cum = c->rx.rel.cum, msg = c->rx.msg;
	switch (lb_rx_data(&c->rx, tp->buf, f)) {
	case LB_RX_TAKEN:
		l->cnt.frames_received++;
		complete_recvs(l, c);
		ack_later(l, c, f->seq != cum || c->rx.rel.cum != cum + 1 || c->rx.msg != msg, l->rx_at);
		return 0;
	case LB_RX_EARLY:
		if (l->stash.n < LB_RX_STASH_MAX)
			return 1;
		drop(l, DROP_WINDOW);
		return 0;
	case LB_RX_DUP:
		c->ack_now = 1; /* our ack may have been lost */
		drop(l, DROP_DUPLICATE);
		return 0;
	case LB_RX_OVERLAP:
		drop(l, DROP_OVERLAP);
		return 0;
	case LB_RX_RANGE:
		drop(l, DROP_RANGE);
		return 0;
	default: /* beyond the window, out of spans or memory: it comes again */
		drop(l, DROP_WINDOW);
		return 0;
	}
}

/* Handles one frame, `fresh` off the wire (not replayed from the stash);
 * returns 1 if it keeps the mbuf (held for later). */
static int on_frame(struct lb_tp *tp, struct lane *l, struct rte_mbuf *m, int fresh)
{
	struct lb_frame f;
	if (m->nb_segs != 1) {
		drop(l, DROP_MALFORMED);
		return 0;
	}
	struct lb_frame_expect e = tp->expect;
	e.lane = (uint16_t)l->index;
	enum lb_frame_verdict v = lb_frame_parse(rte_pktmbuf_mtod(m, const uint8_t *),
						 rte_pktmbuf_data_len(m), &e, &f);
	int32_t ci = v == LB_FRAME_OK ? l->chan_of[f.src] : -1;
	if (v != LB_FRAME_OK || ci < 0 || l->chans[ci].forgotten) {
		drop(l, v != LB_FRAME_OK ? (enum drop)(v - 1) : DROP_NOT_MINE);
		return 0;
	}
	struct chan *c = &l->chans[ci];
	if (fresh)
		c->heard_at = l->rx_at;
	if (f.type == LB_FRAME_DATA)
		return on_data(tp, l, c, &f);
	lb_rel_tx_ack(&c->tx, f.seq, f.sack, now());
	complete_sends(l, c);
	return 0;
}

/* Handles one frame that arrived at `at`; frees it unless it is held. */
static void on_frame_free(struct lb_tp *tp, struct lane *l, struct rte_mbuf *m, double at,
			  int fresh)
{
	if (!on_frame(tp, l, m, fresh) || lb_rx_stash_hold(&l->stash, m, at) != 0)
		rte_pktmbuf_free(m);
}

static double rnd(struct lane *l)
{
	l->rng ^= l->rng << 13;
	l->rng ^= l->rng >> 7;
	l->rng ^= l->rng << 17;
	return (l->rng >> 11) * (1.0 / 9007199254740992.0);
}

/* The inject option: drop, duplicate or hold back a received frame. */
static void inject(struct lb_tp *tp, struct lane *l, struct rte_mbuf *m)
{
	const struct inject *in = &tp->inj;
	if (in->drop > 0 && rnd(l) < in->drop) {
		drop(l, DROP_INJECTED);
		rte_pktmbuf_free(m);
		return;
	}
	if (in->reorder > 0 && l->nheld < HOLD_MAX && rnd(l) < in->reorder) {
		l->held[l->nheld++] = m;
		return;
	}
	if (in->dup > 0 && rnd(l) < in->dup) {
		struct rte_mbuf *copy = rte_pktmbuf_copy(m, l->pool, 0, UINT32_MAX);
		if (copy)
			on_frame_free(tp, l, copy, l->rx_at, 1);
	}
	on_frame_free(tp, l, m, l->rx_at, 1);
}

static void receive(struct lb_tp *tp, struct lane *l)
{
	struct rte_mbuf *m[BURST];
	uint32_t held = l->nheld;
	l->rx_at = now();
	for (uint32_t p = 0; p < l->nports; p++) {
		uint16_t n = rte_eth_rx_burst(l->ports[p], 0, m, BURST);
		for (uint16_t i = 0; i < n; i++)
			inject(tp, l, m[i]);
	}
	/* frames held back before this burst arrive after it: reordered */
	for (uint32_t i = 0; i < held; i++)
		on_frame_free(tp, l, l->held[i], l->rx_at, 1);
	memmove(l->held, l->held + held, (l->nheld - held) * sizeof(*l->held));
	l->nheld -= held;
}

/* Frames held too long for their receives go. */
static void expire_stash(struct lane *l, double t)
{
	struct lb_rx_early e[LB_RX_STASH_MAX];
	uint32_t n = lb_rx_stash_expire(&l->stash, t, STASH_AGE, e);
	for (uint32_t i = 0; i < n; i++) {
		drop(l, DROP_STALE);
		rte_pktmbuf_free(e[i].frame);
	}
}

/* Frames held for receives not posted then: try them again. */
static void replay_stash(struct lb_tp *tp, struct lane *l)
{
	struct lb_rx_early e[LB_RX_STASH_MAX];
	uint32_t n = lb_rx_stash_take(&l->stash, e);
	l->stash_dirty = 0;
	for (uint32_t i = 0; i < n; i++) /* heard when it arrived, not now */
		on_frame_free(tp, l, e[i].frame, e[i].at, 0);
}

/* ---- progress ----------------------------------------------------------- */

static void progress(struct lb_tp *tp, struct lane *l)
{
	if (l->stash.n)
		expire_stash(l, now());
	if (l->stash_dirty)
		replay_stash(tp, l);
	receive(tp, l);
	double t = now();
	for (uint32_t i = 0; i < l->nchans; i++) {
		struct chan *c = &l->chans[i];
		if (c->forgotten)
			continue;
		if (c->ack_now || (c->unacked && t - c->unacked_since >= ACK_DELAY) ||
		    t - c->sent_at >= KEEPALIVE)
			send_ack(tp, l, c, t);
		if (lb_rel_tx_inflight(&c->tx) || c->framed < c->sendq.count)
			transmit(tp, l, c, t);
		complete_sends(l, c); /* zero-length sends need no ack */
	}
}

static void *service_main(void *arg)
{
	struct lb_tp *tp = arg;
	while (!atomic_load(&tp->quit)) {
		nap(SERVICE_NAP);
		long long t = now_ns();
		for (uint32_t i = 0; i < tp->cfg.lanes; i++) {
			struct lane *l = &tp->lanes[i];
			if (t - atomic_load(&l->last_poll_ns) < 2 * SERVICE_NAP * 1e9 ||
			    t - atomic_load(&l->armed_ns) < ARMED_GRACE * 1e9 ||
			    pthread_mutex_trylock(&l->mu) != 0)
				continue;
			progress(tp, l);
			pthread_mutex_unlock(&l->mu);
		}
	}
	return NULL;
}

static struct chan *chan_for(struct lb_tp *tp, uint32_t lane, uint32_t peer)
{
	struct lane *l = &tp->lanes[lane];
	return peer < tp->cfg.size && l->chan_of[peer] >= 0 ? &l->chans[l->chan_of[peer]] : NULL;
}

static int dpdk_post(struct lb_tp *tp, uint32_t lane, enum lb_xfer_kind kind, uint32_t peer,
		     uint64_t off, uint64_t len, uint32_t id, char *err, size_t errlen)
{
	int send = kind == LB_XFER_SEND;
	struct lane *l = &tp->lanes[lane];
	struct chan *c = chan_for(tp, lane, peer);
	if (lb_tp_check_range("dpdk", l->name, off, len, tp->buflen, err, errlen))
		return -1;
	if (!c)
		return lb_errf(err, errlen, "dpdk lane '%s': no channel with rank %u (not a peer of the lane when it connected)",
			       l->name, peer);
	if (c->forgotten)
		return lb_errf(err, errlen, "dpdk lane '%s': the channel with rank %u was given up (forget): no more transfers with it",
			       l->name, peer);
	pthread_mutex_lock(&l->mu);
	if (!c->sendq.count && !lb_rx_pending(&c->rx))
		c->busy_since = now(); /* silence before this is no one's fault */
	struct xfer x = { .off = off, .len = len, .id = id };
	int rc = send ? lb_ring_push(&c->sendq, &x, sizeof(x)) : lb_rx_post(&c->rx, off, len, id);
	if (rc == 0 && !send) {
		l->stash_dirty |= l->stash.n > 0;
		complete_recvs(l, c);
	}
	pthread_mutex_unlock(&l->mu);
	if (rc)
		return lb_errf(err, errlen, "dpdk lane '%s': out of memory queueing a %s with rank %u",
			       l->name, send ? "send" : "receive", peer);
	return 0;
}

/* A peer we wait for (a send not acknowledged, a receive not filled) that
 * sent nothing for silence_max is gone: LB_EPEER. */
static int peer_silent(struct lb_tp *tp, struct lane *l, char *err, size_t len)
{
	double t = now();
	for (uint32_t i = 0; i < l->nchans; i++) {
		const struct chan *c = &l->chans[i];
		if (!c->sendq.count && !lb_rx_pending(&c->rx))
			continue;
		double quiet = t - (c->heard_at > c->busy_since ? c->heard_at : c->busy_since);
		l->longest_quiet = quiet > l->longest_quiet ? quiet : l->longest_quiet;
		if (quiet <= tp->silence_max)
			continue;
		lb_errf(err, len, "dpdk lane '%s': rank %u stopped answering (nothing from it for %.1f s while %s it): did it exit or die? (or was it off the CPU that long: --tp-opt silence)",
			l->name, c->rank, quiet, c->sendq.count ? "sending to" : "receiving from");
		return LB_EPEER;
	}
	return 0;
}

static int dpdk_poll(struct lb_tp *tp, uint32_t lane, struct lb_completion *out, int max,
		     char *err, size_t len)
{
	struct lane *l = &tp->lanes[lane];
	pthread_mutex_lock(&l->mu);
	atomic_store(&l->last_poll_ns, now_ns());
	progress(tp, l);
	int n = peer_silent(tp, l, err, len);
	if (n == 0)
		n = (int)l->done.n < max ? (int)l->done.n : max;
	if (n > 0) {
		for (int i = 0; i < n; i++)
			out[i] = l->done.c[i].c;
		memmove(l->done.c, l->done.c + n, (l->done.n - (uint32_t)n) * sizeof(*l->done.c));
		l->done.n -= (uint32_t)n;
	}
	pthread_mutex_unlock(&l->mu);
	return n;
}

/* An ack waits for ACK_DELAY on some channel: no frame need come to
 * send it. */
static int ack_waiting(const struct lane *l)
{
	for (uint32_t i = 0; i < l->nchans; i++)
		if (l->chans[i].unacked && !l->chans[i].forgotten)
			return 1;
	return 0;
}

/* The lane's fd to sleep on (see wake_fd), unless frames are held back
 * by inject reorder or an ack waits: the next poll lets them go, not an
 * event (the caller naps). */
static int dpdk_arm(struct lb_tp *tp, uint32_t lane)
{
	struct lane *l = &tp->lanes[lane];
	pthread_mutex_lock(&l->mu);
	int fd = l->nheld || ack_waiting(l) ? -1 : l->wake_fd;
	pthread_mutex_unlock(&l->mu);
	if (fd >= 0)
		atomic_store(&l->armed_ns, now_ns());
	return fd;
}

/* Completions of `peer` not yet returned leave the lane's list. */
static void drop_completions(struct comps *d, uint32_t peer)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < d->n; i++)
		if (d->c[i].peer != peer)
			d->c[k++] = d->c[i];
	d->n = k;
}

/* The channel's queued transfers, its frames in flight (no retransmission
 * towards a peer nobody waits for) and its completions go; frames from it
 * held for a receive are dropped at the next replay of the stash, as every
 * later frame of it (on_frame).  Its keepalives stop too. */
static void dpdk_forget(struct lb_tp *tp, uint32_t lane, uint32_t peer)
{
	struct lane *l = &tp->lanes[lane];
	struct chan *c = chan_for(tp, lane, peer);
	if (!c)
		return;
	pthread_mutex_lock(&l->mu);
	c->forgotten = 1;
	lb_ring_free(&c->sendq);
	lb_rx_chan_clear(&c->rx);
	c->framed = 0;
	lb_rel_tx_init(&c->tx, l->window, LB_REL_MIN_RTO, LB_REL_MAX_RTO);
	drop_completions(&l->done, peer);
	l->stash_dirty |= l->stash.n > 0;
	pthread_mutex_unlock(&l->mu);
}

/* A lane's counts in counter_names' order, added to v. */
static void add_counts(const struct counts *k, uint64_t v[NCOUNTERS])
{
	v[0] += k->frames_sent;
	v[1] += k->frames_retransmitted;
	v[2] += k->frames_received;
	v[3] += k->acks_sent;
	for (int r = 0; r < DROPS; r++) {
		v[4] += k->dropped[r];
		v[5 + r] += k->dropped[r];
	}
}

static int dpdk_counters(struct lb_tp *tp, struct lb_tp_counter *out)
{
	uint64_t v[NCOUNTERS] = { 0 };
	for (uint32_t i = 0; tp->lanes && i < tp->cfg.lanes; i++) {
		struct lane *l = &tp->lanes[i];
		pthread_mutex_lock(&l->mu);
		add_counts(&l->cnt, v);
		pthread_mutex_unlock(&l->mu);
	}
	for (size_t i = 0; i < NCOUNTERS; i++)
		out[i] = (struct lb_tp_counter){ counter_names[i], v[i] };
	return (int)NCOUNTERS;
}

static void add_port_counter(struct lb_port_counters *c, const char *prefix, const char *name,
			     uint64_t value)
{
	if (c->n >= LB_PORT_COUNTERS_MAX)
		return;
	snprintf(c->c[c->n].name, sizeof(c->c[c->n].name), "%s%s", prefix, name);
	c->c[c->n++].value = value;
}

/* The lane's ports' rte_eth_stats trouble (eth_stat_names' order) and
 * chosen xstats, summed over its ports, into e[NETH_STATS] and x[nx].
 * Under the lane's lock: its thread and the service thread use the ports
 * under it, and ethdev's calls on a port are not made thread-safe. */
static void port_stats(const struct lane *l, uint64_t e[NETH_STATS], uint64_t *x)
{
	for (uint32_t p = 0; p < l->nports; p++) {
		struct rte_eth_stats st;
		if (rte_eth_stats_get(l->ports[p], &st) == 0) {
			e[0] += st.ierrors;
			e[1] += st.oerrors;
			e[2] += st.imissed;
			e[3] += st.rx_nombuf;
		}
		for (uint32_t i = 0; i < l->nx; i++) {
			uint64_t id = l->xids[p * XSTATS_MAX + i], v;
			if (id != UINT64_MAX && rte_eth_xstats_get_by_id(l->ports[p], &id, &v, 1) == 1)
				x[i] += v;
		}
	}
}

/* The lane's part of counters() -- "dpdk:retransmitted" and
 * "dpdk:dropped" shortened as port.h names them -- then its ports'. */
static void dpdk_lane_counters(struct lb_tp *tp, uint32_t lane, struct lb_port_counters *c)
{
	struct lane *l = &tp->lanes[lane];
	uint64_t v[NCOUNTERS] = { 0 }, e[NETH_STATS] = { 0 }, x[XSTATS_MAX] = { 0 };
	pthread_mutex_lock(&l->mu);
	add_counts(&l->cnt, v);
	port_stats(l, e, x);
	pthread_mutex_unlock(&l->mu);
	for (size_t i = 0; i < NCOUNTERS; i++)
		add_port_counter(c, "dpdk:", i == 1 ? "retransmitted" : i == 4 ? "dropped" : counter_names[i],
				 v[i]);
	for (size_t i = 0; i < NETH_STATS; i++)
		add_port_counter(c, "", eth_stat_names[i], e[i]);
	for (uint32_t i = 0; i < l->nx; i++)
		add_port_counter(c, "", l->xnames[i], x[i]);
}

/* A PMD that drives a device on a bus (PCI, auxiliary, ...) knows its
 * link; a virtual device's link speed is made up: net_af_packet says 10G
 * whatever the interface under it, memif and the like say what they
 * like.  (Whether sysfs calls the netdev virtual does not tell: an
 * af_packet port on a physical NIC's interface still says 10G.) */
static int pmd_drives_device(const struct rte_eth_dev_info *di)
{
	const struct rte_bus *bus = di->device ? rte_dev_bus(di->device) : NULL;
	const char *name = bus ? rte_bus_name(bus) : NULL;
	return name && strcmp(name, "vdev") != 0;
}

/* "+dpdk(af_packet)": the PMD, net_ left out so that it fits beside
 * "sysfs+ethtool". */
static void append_pmd(struct lb_port_facts *f, const char *driver)
{
	size_t n = strlen(f->source);
	const char *pmd = driver ? driver : "?";
	if (!strncmp(pmd, "net_", 4))
		pmd += 4;
	snprintf(f->source + n, sizeof(f->source) - n, "%sdpdk(%s)", n ? "+" : "", pmd);
}

/* The lane's first port (the lane's MAC is its): what sysfs cannot know
 * of a port without a netdev, and the PMD.  Under the lane's lock, as
 * port_stats. */
static void dpdk_port_facts(struct lb_tp *tp, uint32_t lane, struct lb_port_facts *f)
{
	struct lane *l = &tp->lanes[lane];
	struct rte_eth_dev_info di;
	struct rte_eth_link link;
	uint16_t mtu;
	pthread_mutex_lock(&l->mu);
	int info = rte_eth_dev_info_get(l->ports[0], &di) == 0;
	int up = rte_eth_link_get_nowait(l->ports[0], &link) == 0 ? link.link_status == RTE_ETH_LINK_UP : -1;
	int have_mtu = rte_eth_dev_get_mtu(l->ports[0], &mtu) == 0;
	pthread_mutex_unlock(&l->mu);
	if (!f->mac[0]) {
		const uint8_t *b = l->mac.addr_bytes;
		snprintf(f->mac, sizeof(f->mac), "%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2],
			 b[3], b[4], b[5]);
	}
	if (!f->mtu && have_mtu)
		f->mtu = mtu;
	if (f->carrier < 0 && up >= 0)
		f->carrier = up;
	if (!f->state[0] && up >= 0)
		snprintf(f->state, sizeof(f->state), "%s", up ? "up" : "down");
	if (up >= 0 && info && pmd_drives_device(&di) && link.link_speed != RTE_ETH_SPEED_NUM_NONE &&
	    link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
		f->speed_bps = link.link_speed * 1e6;
	if (!f->driver[0] && info && di.driver_name)
		snprintf(f->driver, sizeof(f->driver), "%s", di.driver_name);
	append_pmd(f, info ? di.driver_name : NULL);
}

/* Stops and closes the lane's ports, except memif's: the PMD handles a
 * peer's disconnect in EAL's interrupt thread, and a local stop at the
 * same time, or after it, frees the shared regions twice (seen: "Invalid
 * memory", crashes).  Left open, a memif port goes down with the process,
 * and every peer only ever handles disconnects in one thread.  The pool
 * stays too: a running port may still hold its mbufs. */
static void close_lane(struct lane *l)
{
	int keep = 0;
	if (getenv("LB_DPDK_DEBUG"))
		fprintf(stderr, "dpdk: lane %u: longest silence of a peer waited for: %.3f s\n",
			l->index, l->longest_quiet);
	for (uint32_t i = 0; i < l->nports; i++) {
		struct rte_eth_dev_info di;
		if (is_memif(l->ports[i], &di)) {
			keep = 1;
			continue;
		}
		if (l->started[i])
			rte_eth_dev_stop(l->ports[i]);
		rte_eth_dev_close(l->ports[i]);
	}
	struct lb_rx_early e[LB_RX_STASH_MAX];
	for (uint32_t i = 0, n = lb_rx_stash_take(&l->stash, e); i < n; i++)
		rte_pktmbuf_free(e[i].frame);
	for (uint32_t i = 0; i < l->nheld; i++)
		rte_pktmbuf_free(l->held[i]);
	if (!keep) {
		rte_mempool_free(l->pool);
		rte_mempool_free(l->attach_pool);
	}
	for (uint32_t i = 0; i < l->nchans; i++) {
		lb_ring_free(&l->chans[i].sendq);
		lb_rx_chan_clear(&l->chans[i].rx);
	}
	free(l->chans);
	free(l->port_of);
	free(l->chan_of);
	free(l->done.c);
	free(l->xnames);
	free(l->xids);
	pthread_mutex_destroy(&l->mu);
}

/* With --no-huge, EAL keeps its runtime directory (config, fbarrays) after
 * cleanup; one per job and rank would pile up in /var/run/dpdk. */
static void eal_cleanup(void)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	/* No rte_eal_cleanup(): it frees memory under the interrupt thread,
	 * where memif may still be handling a peer's disconnect (seen to
	 * crash); the process ends soon after and EAL cannot start twice. */
	eal_state = -1;
	DIR *d = own_prefix ? opendir(dir) : NULL;
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			(void)unlinkat(dirfd(d), e->d_name, 0);
	if (d) {
		closedir(d);
		rmdir(dir);
	}
}

static void dpdk_close(struct lb_tp *tp)
{
	if (!tp)
		return;
	atomic_store(&tp->quit, 1);
	if (tp->service_started)
		pthread_join(tp->service, NULL);
	for (uint32_t i = 0; tp->lanes && i < tp->cfg.lanes; i++)
		close_lane(&tp->lanes[i]);
	free(tp->lanes);
	if (eal_state == 1)
		eal_cleanup();
	free(tp);
}

const struct lb_transport lb_transport_dpdk = {
	.name = "dpdk",
	.summary = "rte_ethdev raw Ethernet, one port per lane (or per peer), own reliable delivery",
	.nic_kind = "network",
	.options = dpdk_options,
	.open = dpdk_open,
	.local_address = dpdk_local_address,
	.connect = dpdk_connect,
	.register_buffer = dpdk_register,
	.post = dpdk_post,
	.poll = dpdk_poll,
	.arm = dpdk_arm,
	.counters = dpdk_counters,
	.port_facts = dpdk_port_facts,
	.lane_counters = dpdk_lane_counters,
	.forget = dpdk_forget,
	.close = dpdk_close,
};
