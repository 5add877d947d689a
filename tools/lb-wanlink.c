/* lb-wanlink: a WAN delay line between emulated sites (scripts/cluster up
 * --sites).  This kernel has no netem, so the delay is done here, in user
 * space: the program owns one TAP device per site (each a port of that
 * site's bridge for one rail), reads every Ethernet frame a site sends into
 * the WAN, holds it the delay of that pair of sites, then writes it to the
 * site it is for -- learned from source MACs like a switch; broadcasts and
 * unknown destinations go to every other site.  Frames wait in one FIFO per
 * direction of a site pair (its frames all wait the same delay, so arrival
 * order is departure order), bounded in bytes: a frame that finds it full
 * is dropped and counted, as a router's queue would.  The WAN's rate is
 * shaped by a tbf on each TAP (scripts/cluster): what a site sends into the
 * WAN leaves through its TAP's qdisc -- unless a pair has a rate of its
 * own (--pair A,B,SECONDS,BYTES_PER_S): then the line serialises that
 * pair's frames at the rate, a token bucket of one frame, and drops a
 * frame that would wait more than a round trip plus QUEUE_SLACK for it.
 *
 *   lb-wanlink --delay SECONDS [--pair A,B,SECONDS[,BYTES_PER_S]]...
 *              [--queue BYTES] [--mtu M] [--priority P] TAP TAP...
 *
 * --delay is every pair's one-way delay but those --pair gives (A and B:
 * TAPs by position from 0, both directions); --queue bounds each FIFO.
 *
 * The line is the WAN, so it runs SCHED_FIFO at priority P (default 10; 0:
 * ordinary scheduling): an ordinary process on a busy machine waited for a
 * CPU longer than it ran, released frames up to a second late and let the
 * TAPs' rings overflow (docs/benchmarks/bench-wanlink.md).  Its work is
 * bounded by the traffic ordinary processes give it, and each wake-up by
 * BATCH frames a TAP, so it cannot starve them.
 *
 * The TAPs must exist (ip tuntap add mode tap NAME); the program attaches
 * to them and runs until SIGTERM or SIGINT, then prints its counts on
 * stderr (SIGUSR1: prints them and goes on).  Not part of lanebench's
 * layers: a tool of the emulated cluster. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* ppoll */
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_TAPS 16
#define MAX_MACS 1024
#define ETH_HEADER 18 /* with one VLAN tag */
#define BATCH 64      /* frames read from one TAP per wake-up */
#define QUEUE_SLACK 0.02 /* s a rate-shaped pair queues beyond its round trip */

struct frame {
	double due; /* monotonic seconds */
	uint32_t len;
};

/* One direction of a site pair: its delay, rate and waiting frames. */
struct pair {
	double delay;         /* one way, seconds */
	double rate;          /* bytes/s; 0: shaped by the TAP's tbf */
	double wire_free;     /* when its last frame is serialised (rate > 0) */
	size_t head, count;
	struct frame *frames; /* [nslots] */
	uint8_t *data;        /* [nslots * slot] */
};

struct mac_entry {
	uint8_t mac[6];
	int tap;
};

struct wan {
	int fd[MAX_TAPS];
	int ntaps;
	struct pair pair[MAX_TAPS][MAX_TAPS]; /* [from][to] */
	int priority;         /* SCHED_FIFO priority, 0: ordinary */
	size_t frame_max;     /* the longest frame forwarded: MTU + header */
	size_t slot;          /* frame_max + 1: a longer read is a longer frame */
	size_t nslots;        /* frames a pair's FIFO holds */
	uint8_t *scratch;     /* [slot]: a frame being read */
	struct mac_entry macs[MAX_MACS];
	int nmacs;
	struct stats {
		uint64_t read, forwarded, dropped_full, dropped_write, write_eagain;
		uint64_t too_long;          /* frames over frame_max, dropped */
		uint64_t wakeups, released, late_1ms; /* released over 1 ms after due */
		double late_sum, late_max;  /* seconds after due, over releases */
		size_t depth_max;           /* frames one FIFO held at once */
	} st;
};

static volatile sig_atomic_t stop, report;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		report = 1;
	else
		stop = 1;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int open_tap(const char *name)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || strlen(name) >= IFNAMSIZ) {
		fprintf(stderr, "lb-wanlink: %s: cannot open /dev/net/tun: %s\n", name,
			strerror(fd < 0 ? errno : ENAMETOOLONG));
		return -1;
	}
	strcpy(ifr.ifr_name, name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		fprintf(stderr, "lb-wanlink: %s: cannot attach to the TAP: %s\n", name,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* The tap a MAC was last seen on, or -1. */
static int mac_tap(const struct wan *w, const uint8_t *mac)
{
	for (int i = 0; i < w->nmacs; i++)
		if (memcmp(w->macs[i].mac, mac, 6) == 0)
			return w->macs[i].tap;
	return -1;
}

static void learn(struct wan *w, const uint8_t *mac, int tap)
{
	if (mac[0] & 1) /* a multicast source is no station */
		return;
	for (int i = 0; i < w->nmacs; i++)
		if (memcmp(w->macs[i].mac, mac, 6) == 0) {
			w->macs[i].tap = tap;
			return;
		}
	if (w->nmacs < MAX_MACS) {
		memcpy(w->macs[w->nmacs].mac, mac, 6);
		w->macs[w->nmacs++].tap = tap;
	}
}

/* The time a frame of len bytes read at t is due at the far end of p, or
 * -1 when it must be dropped (its FIFO full, or it would queue too long
 * for p's rate). */
static double due_time(const struct wan *w, struct pair *p, double t, size_t len)
{
	if (p->count == w->nslots)
		return -1;
	if (p->rate == 0)
		return t + p->delay;
	double start = p->wire_free > t ? p->wire_free : t;
	if (start - t > 2 * p->delay + QUEUE_SLACK)
		return -1;
	p->wire_free = start + (double)len / p->rate;
	return p->wire_free + p->delay;
}

/* The frame in w->scratch, read at t, into the FIFO of p (or dropped). */
static void enqueue(struct wan *w, struct pair *p, double t, size_t len)
{
	double due = due_time(w, p, t, len);
	if (due < 0) {
		w->st.dropped_full++;
		return;
	}
	size_t tail = (p->head + p->count) % w->nslots;
	memcpy(p->data + tail * w->slot, w->scratch, len);
	p->frames[tail] = (struct frame){ due, (uint32_t)len };
	p->count++;
	w->st.depth_max = p->count > w->st.depth_max ? p->count : w->st.depth_max;
}

/* Reads up to BATCH frames waiting on tap i into the FIFOs of the pairs
 * they cross (or drops them). */
static void read_tap(struct wan *w, int i)
{
	for (int k = 0; k < BATCH; k++) {
		const uint8_t *buf = w->scratch;
		ssize_t n = read(w->fd[i], w->scratch, w->slot);
		if (n < 0)
			return; /* EAGAIN: drained */
		w->st.read++;
		if ((size_t)n > w->frame_max) { /* cut by the read: never sent on cut */
			w->st.too_long++;
			continue;
		}
		if (n < 14)
			continue;
		learn(w, buf + 6, i);
		int to = buf[0] & 1 ? -1 : mac_tap(w, buf);
		double t = now();
		for (int j = 0; j < w->ntaps; j++) /* to == i: for its own site, none */
			if (j != i && (to < 0 || j == to))
				enqueue(w, &w->pair[i][j], t, (size_t)n);
	}
}

static void note_lateness(struct stats *st, double late)
{
	st->released++;
	st->late_sum += late;
	st->late_max = late > st->late_max ? late : st->late_max;
	st->late_1ms += late > 1e-3;
}

/* Writes the frames of p (going to tap `to`) whose time has come. */
static void release(struct wan *w, struct pair *p, int to, double t)
{
	while (p->count && p->frames[p->head].due <= t) {
		const struct frame *f = &p->frames[p->head];
		if (write(w->fd[to], p->data + p->head * w->slot, f->len) == (ssize_t)f->len) {
			w->st.forwarded++;
		} else {
			w->st.dropped_write++;
			w->st.write_eagain += errno == EAGAIN;
		}
		note_lateness(&w->st, t - f->due);
		p->head = (p->head + 1) % w->nslots;
		p->count--;
	}
}

static void release_all(struct wan *w, double t)
{
	for (int i = 0; i < w->ntaps; i++)
		for (int j = 0; j < w->ntaps; j++)
			if (i != j)
				release(w, &w->pair[i][j], j, t);
}

/* Seconds until the next frame is due (0: one is), at most 1. */
static double next_wait(const struct wan *w, double t)
{
	double wait = 1.0;
	for (int i = 0; i < w->ntaps; i++)
		for (int j = 0; j < w->ntaps; j++) {
			const struct pair *p = &w->pair[i][j];
			if (i != j && p->count && p->frames[p->head].due - t < wait)
				wait = p->frames[p->head].due - t;
		}
	return wait < 0 ? 0 : wait;
}

/* The line's time on a CPU and waiting for one (runnable, not running),
 * from the kernel's schedstat: a late release with little waiting was not
 * the scheduler's doing. */
static void print_cpu_times(void)
{
	unsigned long long ran = 0, waited = 0;
	FILE *f = fopen("/proc/self/schedstat", "r");
	if (!f)
		return;
	if (fscanf(f, "%llu %llu", &ran, &waited) == 2)
		fprintf(stderr, "lb-wanlink: on a CPU %.3f s, waiting for one %.3f s\n", ran * 1e-9,
			waited * 1e-9);
	fclose(f);
}

/* The counts, on stderr at exit and on SIGUSR1: what the line did and how
 * late it was. */
static void print_stats(const struct stats *st)
{
	fprintf(stderr, "lb-wanlink: %llu frames forwarded, %llu dropped (queue full), "
		"%llu dropped (write), %llu dropped (longer than MTU + %d)\n",
		(unsigned long long)st->forwarded, (unsigned long long)st->dropped_full,
		(unsigned long long)st->dropped_write, (unsigned long long)st->too_long, ETH_HEADER);
	fprintf(stderr, "lb-wanlink: read %llu, write EAGAIN %llu, wakeups %llu, most held %zu; "
		"released after due: mean %.3f ms, max %.3f ms, %llu over 1 ms\n",
		(unsigned long long)st->read, (unsigned long long)st->write_eagain,
		(unsigned long long)st->wakeups, st->depth_max,
		st->released ? st->late_sum / (double)st->released * 1e3 : 0.0, st->late_max * 1e3,
		(unsigned long long)st->late_1ms);
	print_cpu_times();
}

/* Until a signal (0) or a TAP fails (1). */
static int run(struct wan *w)
{
	struct pollfd pfd[MAX_TAPS];
	for (int i = 0; i < w->ntaps; i++)
		pfd[i] = (struct pollfd){ .fd = w->fd[i], .events = POLLIN };
	while (!stop) {
		double wait = next_wait(w, now());
		struct timespec ts = { (time_t)wait, (long)((wait - (time_t)wait) * 1e9) };
		w->st.wakeups++;
		if (ppoll(pfd, (nfds_t)w->ntaps, &ts, NULL) > 0)
			for (int i = 0; i < w->ntaps; i++) {
				/* a TAP gone under the line: at SCHED_FIFO a poll
				 * that keeps failing would spin, so end */
				if (pfd[i].revents & (POLLERR | POLLHUP | POLLNVAL)) {
					fprintf(stderr, "lb-wanlink: TAP %d failed (poll revents %#x): ending\n",
						i, (unsigned)pfd[i].revents);
					return 1;
				}
				if (pfd[i].revents & POLLIN)
					read_tap(w, i);
			}
		release_all(w, now());
		if (report) {
			report = 0;
			print_stats(&w->st);
		}
	}
	return 0;
}

/* SCHED_FIFO at w->priority; where that is refused (no CAP_SYS_NICE, an
 * RT budget of 0), said, and ordinary scheduling. */
static void take_priority(const struct wan *w)
{
	struct sched_param sp = { .sched_priority = w->priority };
	if (w->priority == 0)
		return;
	if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0)
		fprintf(stderr, "lb-wanlink: SCHED_FIFO, priority %d\n", w->priority);
	else
		fprintf(stderr, "lb-wanlink: cannot run SCHED_FIFO (%s): ordinary scheduling, "
			"late frames on a busy machine\n", strerror(errno));
}

static int usage(void)
{
	fputs("usage: lb-wanlink --delay SECONDS [--pair A,B,SECONDS[,BYTES_PER_S]]...\n"
	      "                  [--queue BYTES] [--mtu M] [--priority P] TAP TAP...\n",
	      stderr);
	return 2;
}

/* --pair A,B,SECONDS[,BYTES_PER_S] into both directions of pair A-B
 * (their delay was -1: not given); 0, or -1 on bad input. */
static int parse_pair(struct wan *w, const char *arg)
{
	char *end;
	long a = strtol(arg, &end, 10), b = *end == ',' ? strtol(end + 1, &end, 10) : -1;
	double delay = *end == ',' ? strtod(end + 1, &end) : -1, rate = 0;
	if (*end == ',')
		rate = strtod(end + 1, &end);
	if (*end || a < 0 || b < 0 || a >= MAX_TAPS || b >= MAX_TAPS || a == b ||
	    !(delay >= 0) || !(rate >= 0) || w->pair[a][b].delay >= 0)
		return -1;
	w->pair[a][b] = w->pair[b][a] = (struct pair){ .delay = delay, .rate = rate };
	return 0;
}

/* Before the options: no pair's delay given (-1). */
static void unset_pairs(struct wan *w)
{
	for (int i = 0; i < MAX_TAPS; i++)
		for (int j = 0; j < MAX_TAPS; j++)
			w->pair[i][j].delay = -1;
}

/* Pairs --pair did not give take --delay; a --pair beyond the TAPs is an
 * error (-1). */
static int default_pairs(struct wan *w, double delay)
{
	for (int i = 0; i < MAX_TAPS; i++)
		for (int j = 0; j < MAX_TAPS; j++) {
			if (w->pair[i][j].delay >= 0 && (i >= w->ntaps || j >= w->ntaps))
				return -1;
			if (w->pair[i][j].delay < 0)
				w->pair[i][j].delay = delay;
		}
	return 0;
}

/* Options into w and the TAPs' names; 0, or -1 on bad input (said). */
static int parse(int argc, char **argv, struct wan *w, size_t *queue, char ***taps)
{
	long mtu = 1500;
	double delay = 0;
	int i = 1;
	for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
		char *end;
		double v = strtod(argv[i + 1], &end);
		if (strcmp(argv[i], "--pair") == 0) {
			if (parse_pair(w, argv[i + 1]) == 0)
				continue;
			fprintf(stderr, "lb-wanlink: --pair: bad value '%s' (expected A,B,SECONDS[,BYTES_PER_S], "
				"two TAPs by position, each pair once)\n", argv[i + 1]);
			return -1;
		}
		if (*end || !(v >= 0)) {
			fprintf(stderr, "lb-wanlink: %s: bad value '%s'\n", argv[i], argv[i + 1]);
			return -1;
		}
		if (strcmp(argv[i], "--delay") == 0)
			delay = v;
		else if (strcmp(argv[i], "--queue") == 0)
			*queue = (size_t)v;
		else if (strcmp(argv[i], "--mtu") == 0 && v >= 68 && v <= 65535)
			mtu = (long)v;
		else if (strcmp(argv[i], "--priority") == 0 && v <= 99 && v == (int)v)
			w->priority = (int)v;
		else {
			fprintf(stderr, "lb-wanlink: bad option '%s %s'\n", argv[i], argv[i + 1]);
			return -1;
		}
	}
	w->ntaps = argc - i;
	if (w->ntaps < 2 || w->ntaps > MAX_TAPS)
		return -1;
	if (default_pairs(w, delay)) {
		fprintf(stderr, "lb-wanlink: --pair names a TAP beyond the %d given\n", w->ntaps);
		return -1;
	}
	w->frame_max = (size_t)mtu + ETH_HEADER;
	w->slot = w->frame_max + 1;
	*taps = argv + i;
	return 0;
}

/* The scratch frame and every pair's FIFO; 0, or -1 out of memory.  Pages
 * of a FIFO never filled are never touched, so never backed. */
static int allocate(struct wan *w)
{
	if (!(w->scratch = malloc(w->slot)))
		return -1;
	for (int i = 0; i < w->ntaps; i++)
		for (int j = 0; j < w->ntaps; j++) {
			struct pair *p = &w->pair[i][j];
			if (i == j)
				continue;
			p->frames = calloc(w->nslots, sizeof(*p->frames));
			p->data = malloc(w->nslots * w->slot);
			if (!p->frames || !p->data)
				return -1;
		}
	return 0;
}

/* The pairs' delays and rates, for the log. */
static void print_pairs(const struct wan *w)
{
	fputs("lb-wanlink: one-way delay (and rate) per site pair:", stderr);
	for (int i = 0; i < w->ntaps; i++)
		for (int j = i + 1; j < w->ntaps; j++) {
			fprintf(stderr, " %d-%d %.6g ms", i, j, w->pair[i][j].delay * 1e3);
			if (w->pair[i][j].rate > 0)
				fprintf(stderr, " %.6g Mbit/s", w->pair[i][j].rate * 8e-6);
		}
	fputc('\n', stderr);
}

int main(int argc, char **argv)
{
	static struct wan w;
	size_t queue = 16u << 20;
	char **taps;
	w.priority = 10;
	unset_pairs(&w);
	if (parse(argc, argv, &w, &queue, &taps))
		return usage();
	w.nslots = queue / w.slot > 16 ? queue / w.slot : 16;
	if (allocate(&w)) {
		fputs("lb-wanlink: out of memory\n", stderr);
		return 1;
	}
	take_priority(&w);
	print_pairs(&w); /* before a TAP has carrier: `cluster up` has returned then */
	for (int i = 0; i < w.ntaps; i++)
		if ((w.fd[i] = open_tap(taps[i])) < 0)
			return 1;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGUSR1, on_signal);
	int rc = run(&w);
	print_stats(&w.st);
	return rc;
}
