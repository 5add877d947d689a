/* lb-wanlink: a WAN delay line between emulated sites (scripts/cluster up
 * --sites).  This kernel has no netem, so the delay is done here, in user
 * space: the program owns one TAP device per site (each a port of that
 * site's bridge for one rail), reads every Ethernet frame a site sends into
 * the WAN, holds it DELAY, then writes it to the site it is for -- learned
 * from source MACs like a switch; broadcasts and unknown destinations go to
 * every other site.  Frames wait in one FIFO (every frame waits the same
 * delay, so arrival order is departure order), bounded in bytes: a frame
 * that finds it full is dropped and counted, as a router's queue would.
 * The WAN's rate is not shaped here but by a tbf on each TAP (scripts/
 * cluster): what a site sends into the WAN leaves through its TAP's qdisc.
 *
 *   lb-wanlink --delay SECONDS [--queue BYTES] [--mtu M] TAP TAP...
 *
 * The TAPs must exist (ip tuntap add mode tap NAME); the program attaches
 * to them and runs until SIGTERM or SIGINT, then prints its counts on
 * stderr.  Not part of lanebench's layers: a tool of the emulated cluster. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* ppoll */
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
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

struct frame {
	double due;       /* monotonic seconds */
	uint32_t len;
	int from;         /* tap it came in on */
	int to;           /* tap it goes to; -1: every tap but `from` */
};

struct mac_entry {
	uint8_t mac[6];
	int tap;
};

struct wan {
	int fd[MAX_TAPS];
	int ntaps;
	double delay;
	size_t slot;          /* bytes of one frame slot */
	size_t nslots, head, count;
	struct frame *frames; /* [nslots] */
	uint8_t *data;        /* [nslots * slot] */
	struct mac_entry macs[MAX_MACS];
	int nmacs;
	uint64_t forwarded, dropped_full, dropped_write;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
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

/* Reads every frame waiting on tap i into the FIFO (or drops it). */
static void read_tap(struct wan *w, int i)
{
	for (;;) {
		size_t tail = (w->head + w->count) % w->nslots;
		uint8_t scratch[ETH_HEADER];
		int full = w->count == w->nslots;
		uint8_t *buf = full ? scratch : w->data + tail * w->slot;
		ssize_t n = read(w->fd[i], buf, full ? sizeof(scratch) : w->slot);
		if (n < 0)
			return; /* EAGAIN: drained */
		if (full || n < 14) {
			w->dropped_full += full;
			continue;
		}
		learn(w, buf + 6, i);
		int to = buf[0] & 1 ? -1 : mac_tap(w, buf);
		if (to == i)
			continue; /* for its own site: the bridge should not have sent it */
		w->frames[tail] = (struct frame){ now() + w->delay, (uint32_t)n, i, to };
		w->count++;
	}
}

/* Writes the frames whose time has come. */
static void release(struct wan *w, double t)
{
	while (w->count && w->frames[w->head].due <= t) {
		const struct frame *f = &w->frames[w->head];
		const uint8_t *buf = w->data + w->head * w->slot;
		for (int j = 0; j < w->ntaps; j++) {
			if (j == f->from || (f->to >= 0 && j != f->to))
				continue;
			if (write(w->fd[j], buf, f->len) == (ssize_t)f->len)
				w->forwarded++;
			else
				w->dropped_write++;
		}
		w->head = (w->head + 1) % w->nslots;
		w->count--;
	}
}

static void run(struct wan *w)
{
	struct pollfd pfd[MAX_TAPS];
	for (int i = 0; i < w->ntaps; i++)
		pfd[i] = (struct pollfd){ .fd = w->fd[i], .events = POLLIN };
	while (!stop) {
		double wait = w->count ? w->frames[w->head].due - now() : 1.0;
		wait = wait < 0 ? 0 : wait;
		struct timespec ts = { (time_t)wait, (long)((wait - (time_t)wait) * 1e9) };
		if (ppoll(pfd, (nfds_t)w->ntaps, &ts, NULL) > 0)
			for (int i = 0; i < w->ntaps; i++)
				if (pfd[i].revents & POLLIN)
					read_tap(w, i);
		release(w, now());
	}
}

static int usage(void)
{
	fputs("usage: lb-wanlink --delay SECONDS [--queue BYTES] [--mtu M] TAP TAP...\n", stderr);
	return 2;
}

/* Options into w and the TAPs' names; 0, or -1 on bad input (said). */
static int parse(int argc, char **argv, struct wan *w, size_t *queue, char ***taps)
{
	long mtu = 1500;
	int i = 1;
	for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
		char *end;
		double v = strtod(argv[i + 1], &end);
		if (*end || !(v >= 0)) {
			fprintf(stderr, "lb-wanlink: %s: bad value '%s'\n", argv[i], argv[i + 1]);
			return -1;
		}
		if (strcmp(argv[i], "--delay") == 0)
			w->delay = v;
		else if (strcmp(argv[i], "--queue") == 0)
			*queue = (size_t)v;
		else if (strcmp(argv[i], "--mtu") == 0 && v >= 68 && v <= 65535)
			mtu = (long)v;
		else {
			fprintf(stderr, "lb-wanlink: bad option '%s %s'\n", argv[i], argv[i + 1]);
			return -1;
		}
	}
	w->ntaps = argc - i;
	if (w->ntaps < 2 || w->ntaps > MAX_TAPS)
		return -1;
	w->slot = (size_t)mtu + ETH_HEADER;
	*taps = argv + i;
	return 0;
}

int main(int argc, char **argv)
{
	static struct wan w;
	size_t queue = 16u << 20;
	char **taps;
	if (parse(argc, argv, &w, &queue, &taps))
		return usage();
	w.nslots = queue / w.slot > 16 ? queue / w.slot : 16;
	w.frames = calloc(w.nslots, sizeof(*w.frames));
	w.data = malloc(w.nslots * w.slot);
	if (!w.frames || !w.data) {
		fputs("lb-wanlink: out of memory\n", stderr);
		return 1;
	}
	for (int i = 0; i < w.ntaps; i++)
		if ((w.fd[i] = open_tap(taps[i])) < 0)
			return 1;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	run(&w);
	fprintf(stderr, "lb-wanlink: %llu frames forwarded, %llu dropped (queue full), %llu dropped (write)\n",
		(unsigned long long)w.forwarded, (unsigned long long)w.dropped_full,
		(unsigned long long)w.dropped_write);
	return 0;
}
