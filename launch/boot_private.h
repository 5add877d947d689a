/* Internal to the bootstrap (launch/bootstrap.c and launch/boot_*.c): nothing
 * else includes this header; launch/bootstrap.h is the interface.
 *
 * Bootstrap: a TCP rendezvous at rank 0, star topology.
 *
 * Wire protocol (version 1).  Every message is a 24-byte header in network
 * byte order, then `len` payload bytes:
 *
 *     u32 magic   0x4c42424f ("LBBO")
 *     u16 version 1
 *     u8  type    HELLO 1, WELCOME 2, COLL 3, REPLY 4, ABORT 5
 *     u8  op      collective: barrier 1, allgather 2, bcast 3, gather 4, agree 5
 *     u32 seq     collective number (1, 2, ...; 0 for HELLO/WELCOME/ABORT)
 *     u32 rank    sender's rank
 *     u32 arg     HELLO/WELCOME: job size; COLL/REPLY: the caller's per-rank len
 *     u32 len     payload bytes: HELLO 1..128 (the token), WELCOME 0,
 *                 COLL/REPLY <= 16 MiB, ABORT <= 1024; more is malformed
 *
 * Joining.  Rank 0 listens; each other rank connects (retrying every
 * 100 ms until the timeout) and sends HELLO{rank, size, token}.  Rank 0
 * reads hellos from all unidentified connections at once (non-blocking;
 * room for min(size, 1024) + 64, beyond that the oldest is dropped) and
 * refuses -- logs to stderr and closes, never counting it as a rank -- any
 * that sends garbage, a bad magic/version/type/length, the wrong token
 * (constant-time compare), another job size, a rank out of 1..size-1 or
 * one already connected, or nothing within 3 s.  A refused peer that speaks the
 * protocol first gets an ABORT with the reason.  Once all size-1 ranks
 * said hello, rank 0 closes the listener and sends WELCOME to each; on
 * timeout it sends them an ABORT naming the missing ranks instead.  A rank
 * whose connection is closed before WELCOME without an ABORT (dropped
 * unidentified) connects again while its connect timeout lasts; it waits
 * for WELCOME until timeout + 1 s after connecting.
 *
 * Collectives.  Each rank sends COLL{op, seq, arg, its contribution} to
 * rank 0.  Rank 0 poll()s all ranks until the deadline (timeout from entry),
 * checks that op, seq and arg agree with its own and the length is the one
 * expected, then sends each rank a REPLY{op, seq, result}:
 *     barrier    COLL 0 bytes,   REPLY 0 bytes
 *     allgather  COLL len bytes, REPLY size*len bytes (all contributions)
 *     bcast      COLL 0 bytes,   REPLY len bytes (rank 0's buffer)
 *     gather     COLL len bytes, REPLY 0 bytes
 *     agree      a gather of 256-byte {ok, reason} records, then a bcast of
 *                rank 0's verdict (empty string = all ok).
 * A non-root rank waits for the reply until timeout + 1 s, so that rank 0's
 * diagnosis (which it relays) normally arrives before the rank's own.
 *
 * Failures.  ABORT's payload is a reason.  From a non-root rank it is that
 * rank's raw reason; rank 0 reports "rank 3 aborted: <reason>".  From rank
 * 0 it is the final one-line message, which the receiver reports verbatim
 * ("rank 3 disconnected", "rank 3 did not answer within 30 s", "rank 2
 * called gather(8 bytes) but rank 0 called allgather(8 bytes)", "rank 0
 * aborted: ...").  Whenever rank 0's collective fails it sends that ABORT
 * to every rank still connected; a non-root rank that fails on its own
 * (timeout, malformed reply, bad arguments) sends its reason to rank 0; if
 * rank 0's connection closes, others fail with "coordinator (rank 0) at
 * HOST:PORT closed the connection".  A failed handle stays failed.
 *
 * Mechanics: sockets are non-blocking, close-on-exec and TCP_NODELAY; every
 * wait is a poll() with a deadline (CLOCK_MONOTONIC); EINTR and partial
 * reads/writes are retried; send() uses MSG_NOSIGNAL (no SIGPIPE); all
 * state lives in the handle. */
#ifndef LB_BOOT_PRIVATE_H
#define LB_BOOT_PRIVATE_H

#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "bootstrap.h"

/* Where each part lives:
 *   bootstrap.c    small helpers, failure state, opening and closing, abort
 *   boot_env.c     lb_boot_env: the configuration from the environment
 *   boot_wire.c    socket I/O and message framing
 *   boot_lobby.c   rank 0: the lobby, sending to every rank, opening
 *   boot_join.c    other ranks: connecting and saying hello
 *   boot_coll.c    collectives (rank 0, other ranks, all) and the agreement
 *   boot_report.c  lb_boot_take_report: the report behind a lost peer */

#define MAGIC       0x4c42424fu
#define VERSION     1u
#define HDR_LEN     24u
#define MSG_CAP     LB_BOOT_MSG_MAX
#define ABORT_MAX   1024u
#define TOKEN_MAX   128u
#define MAX_RANKS   65536u
#define GRACE       1.0   /* s: non-root ranks wait this much past the timeout */
#define ABORT_WAIT  1.0   /* s: best-effort ABORT sends, in all */
#define ERR_LEN     512u

enum { T_HELLO = 1, T_WELCOME, T_COLL, T_REPLY, T_ABORT };
enum { OP_NONE, OP_BARRIER, OP_ALLGATHER, OP_BCAST, OP_GATHER, OP_AGREE };
/* I/O outcomes besides 0 (done) and -errno. */
enum { IO_EOF = 1, IO_TIMEOUT, IO_INPUT };

struct hdr {
	uint32_t magic;
	uint16_t version;
	uint8_t type, op;
	uint32_t seq, rank, arg, len;
};

struct lb_boot {
	uint32_t rank, size, seq;
	double timeout;
	char coord[256];
	int fd;               /* non-root: the connection to rank 0 */
	int *fds;             /* root: fds[r] is rank r's connection (fds[0] = -1) */
	uint8_t *got;         /* root: rank r has answered (joined) */
	struct pollfd *pfd;   /* root: poll set */
	uint32_t *pfd_rank;   /* root: rank of pfd[i] */
	int failed;
	int code;             /* what a failed handle returns: -1, or LB_EPEER */
	char why[ERR_LEN];
};

/* ---- small helpers (bootstrap.c) ----------------------------------------- */

double boot_now(void);
/* Milliseconds for poll() to reach deadline (0 once it passed). */
int boot_ms_until(double deadline);
/* Control characters (newlines above all) become spaces. */
void boot_one_line(char *s);
void boot_copy_line(char *dst, size_t n, const char *src);
/* One line into err (if any room); returns -1. */
__attribute__((format(printf, 3, 4)))
int boot_fail(char *err, size_t len, const char *fmt, ...);

/* ---- environment (boot_env.c) -------------------------------------------- */

/* "host:port" (the last colon splits); host may be empty. */
int boot_parse_coord(const char *s, char host[256], uint16_t *port);

/* ---- socket I/O and messages (boot_wire.c) ------------------------------- */

/* Returns revents (> 0), 0 at the deadline, or -errno. */
int boot_wait_fd(int fd, short events, double deadline);
/* 0, IO_EOF, IO_TIMEOUT or -errno. */
int boot_read_exact(int fd, void *buf, size_t n, double deadline);
int boot_readable_now(int fd);
/* Non-blocking, close-on-exec, TCP_NODELAY. */
int boot_tcp_socket(void);
/* Half-close, read what is left (so close sends FIN rather than RST), close. */
void boot_close_quietly(int fd);
/* IPv4 address of host (NULL or "" or "*" with passive: any): 0, 1 for a
 * temporary failure, -1 (why says why). */
int boot_resolve(const char *host, uint16_t port, int passive, struct sockaddr_in *sa,
		 char *why, size_t wl);
void boot_hdr_unpack(const uint8_t *p, struct hdr *h);
/* NULL if the header is well-formed, else what is wrong with it. */
const char *boot_hdr_check(const struct hdr *h);
/* Header and payload.  stop_on_input: give up (IO_INPUT) when the peer has
 * something to say while we wait to write. */
int boot_send_msg(int fd, const struct hdr *h, const void *payload, double deadline,
		  int stop_on_input);
int boot_recv_hdr(int fd, struct hdr *h, double deadline);
/* An ABORT's payload as a one-line string. */
int boot_recv_reason(int fd, const struct hdr *h, char out[ABORT_MAX + 1], double deadline);
/* Best effort; fd < 0 is skipped. */
void boot_send_abort(int fd, uint32_t rank, const char *reason, double deadline);

/* ---- failure state (bootstrap.c) ----------------------------------------- */

/* Fails the handle for good (the first reason sticks), telling the others. */
__attribute__((format(printf, 4, 5)))
int boot_fail_tell(struct lb_boot *b, char *err, size_t len, const char *fmt, ...);
/* Fails for good; the others already know (or cannot be told). */
__attribute__((format(printf, 4, 5)))
int boot_fail_quiet(struct lb_boot *b, char *err, size_t len, const char *fmt, ...);
/* "3, 5, 7" for the ranks r >= 1 with got[r] == 0; returns how many. */
uint32_t boot_missing_ranks(const struct lb_boot *b, char *out, size_t n);

/* ---- rank 0 (boot_lobby.c) ----------------------------------------------- */

/* h with payload to every rank; a rank it fails for is closed. */
int boot_root_send_all(struct lb_boot *b, struct hdr *h, const void *payload, char *err,
		       size_t len);
/* Listens, admits all size-1 ranks, welcomes them. */
int boot_root_open(struct lb_boot *b, const struct lb_boot_cfg *cfg, const char *host,
		   uint16_t port, char *err, size_t len);

/* ---- other ranks (boot_join.c) ------------------------------------------- */

/* Connects to rank 0 and is admitted, retrying until the timeout. */
int boot_peer_open(struct lb_boot *b, const struct lb_boot_cfg *cfg, const char *host,
		   uint16_t port, char *err, size_t len);

/* ---- collectives (boot_coll.c) ------------------------------------------- */

/* Rank 0: the ranks that have not answered yet, into b->pfd; how many. */
nfds_t boot_root_pollset(struct lb_boot *b);
/* A non-root rank: a read or write towards rank 0 failed with rc. */
int boot_peer_io_error(struct lb_boot *b, int rc, char *err, size_t len);

#endif
