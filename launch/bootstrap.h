/* Bootstrap: how the ranks of a job find each other before any transport
 * exists.  Rank 0 (the coordinator) listens on LANEBENCH_COORD=host:port;
 * every other rank connects, presents the job token and its rank, and from
 * then on all traffic goes through rank 0 (a star): barriers, allgathers of
 * transport addresses, broadcasts, gathers of results, and the status
 * agreement that stops every rank with the reason of the one that failed.
 *
 * Small messages, robustness and clear errors first: every wait is bounded
 * by the timeout, every failure is one line naming the rank, variable or
 * address at fault, and a failure of the job (a rank that disconnects,
 * stops answering or aborts) is relayed by rank 0 to all the others.  After
 * such a failure the handle stays failed: later collectives fail at once
 * with the same reason.  A failed lb_boot_agree is not such a failure.
 *
 * All functions return 0, or -1 with a one-line reason in err (err may be
 * NULL or errlen 0) -- LB_EPEER (lib/error.h) instead when the cause is
 * another rank's: a collective whose exchange failed (a rank disconnected,
 * did not answer, aborted or broke the protocol), an agreement another
 * rank refused.  Nothing is printed to stdout; rank 0 logs refused
 * connections to stderr. */
#ifndef LB_BOOTSTRAP_H
#define LB_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

struct lb_boot_cfg {
	uint32_t rank, size;
	char coord[256];   /* "host:port" of rank 0's listener (IPv4 literal or name) */
	char token[129];   /* job token every rank presents; non-empty when size > 1 */
	double timeout;    /* seconds: for connecting, and for each collective */
	const char *size_from; /* lb_boot_env: the variable that gave the size
				* ("SLURM_NTASKS"); NULL when none did */
};

struct lb_boot;

/* The most one collective carries: an allgather's size * len, a bcast's
 * len, a gather's len (each rank's). */
#define LB_BOOT_MSG_MAX (16u << 20)

/* From the environment: rank/size from the first complete pair among
 * LANEBENCH_RANK/LANEBENCH_SIZE, SLURM_PROCID/SLURM_NTASKS,
 * OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE, PMI_RANK/PMI_SIZE; none ->
 * rank 0 of 1 with size_from NULL (but only one of
 * LANEBENCH_RANK/LANEBENCH_SIZE is an error).
 * LANEBENCH_COORD (required when size > 1), LANEBENCH_TOKEN (when size > 1:
 * required unless SLURM_JOB_ID ("slurm-<id>"), OMPI_MCA_orte_ess_jobid
 * ("ompi-<id>") or PMIX_NAMESPACE ("pmix-<ns>") gives a job-unique value),
 * LANEBENCH_TIMEOUT (seconds, default 60).  Errors name the variable and
 * its bad value: "LANEBENCH_RANK='x' is not a rank (expected 0..3)". */
int lb_boot_env(struct lb_boot_cfg *cfg, char *err, size_t errlen);

/* Rank 0 listens on coord's port (SO_REUSEADDR; binds the given host
 * address, or INADDR_ANY if host is empty/"*") and accepts until all
 * size-1 ranks said hello; others connect, retrying every 100 ms until the
 * timeout.  Returns once the whole job is assembled.  size == 1: no
 * sockets at all.  Rank 0 holds a connection per rank: when its soft
 * limit of open files is below size + 128 it raises it to the hard limit
 * (a hard limit below that fails at once, naming both).  On timeout rank 0's error names the missing ranks
 * ("timeout after 30 s: rank(s) 3, 5 never connected to coordinator
 * 10.9.0.1:18515") and the ranks already connected fail with the same
 * message; a non-root rank that cannot connect names the coordinator and
 * the last connect error.  Returns 0, -1, or LB_EINPUT (lib/error.h) for
 * a configuration that cannot work: a size, rank, token or timeout out of
 * range, a coordinator address that is not host:port or whose host no
 * name service knows. */
int lb_boot_open(const struct lb_boot_cfg *cfg, struct lb_boot **out, char *err, size_t errlen);

uint32_t lb_boot_rank(const struct lb_boot *b);
uint32_t lb_boot_size(const struct lb_boot *b);

int lb_boot_barrier(struct lb_boot *b, char *err, size_t errlen);

/* Every rank contributes len bytes; all[] (size*len) gets them in rank
 * order on every rank.  size*len is limited to LB_BOOT_MSG_MAX (16 MiB). */
int lb_boot_allgather(struct lb_boot *b, const void *mine, size_t len, void *all,
		      char *err, size_t errlen);

/* Rank 0's buf (len bytes, at most 16 MiB) copied to every rank. */
int lb_boot_bcast(struct lb_boot *b, void *buf, size_t len, char *err, size_t errlen);

/* Like allgather but only rank 0's all[] is filled (others may pass NULL);
 * len is limited to 16 MiB. */
int lb_boot_gather(struct lb_boot *b, const void *mine, size_t len, void *all,
		   char *err, size_t errlen);

/* Status agreement: each rank says ok (reason ignored) or not ok with a
 * one-line reason (up to 254 bytes are carried).  Returns 0 on every rank
 * iff all ok; else -1 on every rank with err = "rank 3: <its reason>" (the
 * lowest failing rank; "(and N more)" if several).  reason may be err. */
int lb_boot_agree(struct lb_boot *b, int ok, const char *reason, char *err, size_t errlen);

/* The limit of each later collective's wait, in seconds (> 0).  A rank
 * that only waits while others work for long (p2p's ranks beyond 0 and 1,
 * a whole row per collective) waits as long as that work may take, not
 * one step's timeout. */
void lb_boot_set_timeout(struct lb_boot *b, double seconds);

/* Best effort: tell the others this rank is failing (rank 0 relays an
 * ABORT to all); the others' pending/next collective fails with "rank 3
 * aborted: <reason>", and so does this rank's next one.  Does nothing if
 * the handle already failed.  Never blocks longer than ~1 s. */
void lb_boot_abort(struct lb_boot *b, const char *reason);

/* After this rank lost a peer in the data phase (a transport said
 * LB_EPEER): waits up to `wait` seconds for the report that explains it --
 * the ABORT a failing rank sent before it quit, relayed by rank 0, or at
 * rank 0 a rank's connection closed without a word ("rank 2 disconnected":
 * it died).  Found: the handle fails with that reason (rank 0 tells every
 * rank), err gets it, returns LB_EPEER.  Else 0 and err is untouched;
 * messages of a collective some rank already entered are left alone. */
int lb_boot_take_report(struct lb_boot *b, double wait, char *err, size_t errlen);

/* Releases everything, also after failures; NULL is fine. */
void lb_boot_close(struct lb_boot *b);

#endif
