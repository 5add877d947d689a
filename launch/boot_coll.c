/* Bootstrap: the collectives -- rank 0 collects and replies, the other
 * ranks send and wait -- and the status agreement built on them. */
#include "boot_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"

#define REC         256u  /* agree record: ok byte + NUL-terminated reason */
#define VERDICT     (REC + 64u)

static const char *const op_names[] = { "nothing", "barrier", "allgather", "bcast",
					"gather", "agree" };

/* One collective as the engine sees it. */
struct coll {
	uint8_t op;
	uint32_t arg;         /* caller's len; every rank must pass the same */
	const void *mine;     /* what a non-root sends */
	uint32_t mine_len;
	uint8_t *gathered;    /* root: contributions land at [rank * mine_len] */
	const void *reply;    /* root: what every rank gets back */
	uint32_t reply_len;
	void *reply_dst;      /* non-root: where it goes */
};

/* ---- collectives: rank 0 ------------------------------------------------- */

/* Reads rank r's message for collective c. */
static int root_take(struct lb_boot *b, uint32_t r, const struct coll *c, double deadline,
		     char *err, size_t len)
{
	char reason[ABORT_MAX + 1];
	struct hdr h;
	int rc = boot_recv_hdr(b->fds[r], &h, deadline);
	const char *bad = rc ? NULL : boot_hdr_check(&h);
	if (rc == 0 && !bad && h.type == T_ABORT &&
	    boot_recv_reason(b->fds[r], &h, reason, deadline) == 0)
		return boot_fail(err, len, "rank %u aborted: %s", r, reason);
	if (rc == IO_EOF || rc == -ECONNRESET) {
		close(b->fds[r]);
		b->fds[r] = -1;
		return boot_fail(err, len, "rank %u disconnected", r);
	}
	if (rc == IO_TIMEOUT)
		return boot_fail(err, len, "rank %u did not answer within %g s", r, b->timeout);
	if (rc)
		return boot_fail(err, len, "rank %u: receive: %s", r, strerror(-rc));
	if (bad || h.type != T_COLL || h.rank != r)
		return boot_fail(err, len, "rank %u sent a malformed message (%s)", r,
				 bad ? bad : h.type == T_ABORT ? "truncated abort" : "not a collective");
	if (h.seq != b->seq)
		return boot_fail(err, len, "rank %u is at collective #%u but rank 0 at #%u", r, h.seq,
				 b->seq);
	if (h.op != c->op || h.arg != c->arg || h.len != c->mine_len)
		return boot_fail(err, len, "rank %u called %s(%u bytes) but rank 0 called %s(%u bytes)", r,
				 op_names[h.op], h.arg, op_names[c->op], c->arg);
	if (c->mine_len)
		rc = boot_read_exact(b->fds[r], c->gathered + (size_t)r * c->mine_len, c->mine_len, deadline);
	if (rc == IO_TIMEOUT)
		return boot_fail(err, len, "rank %u did not finish its message within %g s", r, b->timeout);
	return rc ? boot_fail(err, len, "rank %u disconnected", r) : 0;
}

/* Ranks that have not answered yet, into the poll set. */
nfds_t boot_root_pollset(struct lb_boot *b)
{
	nfds_t n = 0;
	for (uint32_t r = 1; r < b->size; r++) {
		if (b->got[r])
			continue;
		b->pfd[n] = (struct pollfd){ .fd = b->fds[r], .events = POLLIN };
		b->pfd_rank[n++] = r;
	}
	return n;
}

static int root_collect(struct lb_boot *b, const struct coll *c, char *err, size_t len)
{
	double deadline = boot_now() + b->timeout;
	char list[200];
	memset(b->got, 0, b->size);
	for (nfds_t n; (n = boot_root_pollset(b)) > 0;) {
		int k = poll(b->pfd, n, boot_ms_until(deadline));
		if (k < 0 && errno != EINTR)
			return boot_fail(err, len, "poll: %s", strerror(errno));
		if (k == 0 && boot_now() >= deadline) {
			uint32_t m = boot_missing_ranks(b, list, sizeof(list));
			return boot_fail(err, len, "rank%s %s did not answer within %g s", m > 1 ? "s" : "",
					 list, b->timeout);
		}
		for (nfds_t i = 0; k > 0 && i < n; i++) {
			if (!b->pfd[i].revents)
				continue;
			if (root_take(b, b->pfd_rank[i], c, deadline, err, len))
				return -1;
			b->got[b->pfd_rank[i]] = 1;
		}
	}
	return 0;
}

static int root_coll(struct lb_boot *b, const struct coll *c, char *err, size_t len)
{
	char why[ERR_LEN];
	struct hdr h = { .type = T_REPLY, .op = c->op, .seq = b->seq, .arg = c->arg,
			 .len = c->reply_len };
	if (root_collect(b, c, why, sizeof(why)) ||
	    boot_root_send_all(b, &h, c->reply, why, sizeof(why)))
		return boot_fail_tell(b, err, len, "%s", why);
	return 0;
}

/* ---- collectives: other ranks -------------------------------------------- */

/* A read or write towards rank 0 failed with rc. */
int boot_peer_io_error(struct lb_boot *b, int rc, char *err, size_t len)
{
	if (rc == IO_EOF || rc == -ECONNRESET || rc == -EPIPE)
		return boot_fail_quiet(b, err, len, "coordinator (rank 0) at %s closed the connection",
				       b->coord);
	if (rc == IO_TIMEOUT)
		return boot_fail_tell(b, err, len, "coordinator (rank 0) at %s did not answer within %g s",
				      b->coord, b->timeout);
	return boot_fail_tell(b, err, len, "connection to coordinator (rank 0) at %s: %s", b->coord,
			      strerror(-rc));
}

/* Waits for rank 0's REPLY to collective c (or its ABORT). */
static int peer_reply(struct lb_boot *b, const struct coll *c, double deadline, char *err,
		      size_t len)
{
	struct hdr h;
	int rc = boot_recv_hdr(b->fd, &h, deadline);
	const char *bad = rc ? NULL : boot_hdr_check(&h);
	if (rc)
		return boot_peer_io_error(b, rc, err, len);
	if (bad)
		return boot_fail_tell(b, err, len, "coordinator (rank 0) at %s sent a malformed message "
				      "(%s)", b->coord, bad);
	if (h.type == T_ABORT) {
		char reason[ABORT_MAX + 1];
		rc = boot_recv_reason(b->fd, &h, reason, deadline);
		return rc ? boot_peer_io_error(b, rc, err, len) : boot_fail_quiet(b, err, len, "%s", reason);
	}
	if (h.type != T_REPLY || h.seq != b->seq || h.op != c->op || h.len != c->reply_len)
		return boot_fail_tell(b, err, len, "coordinator (rank 0) at %s sent a %s #%u of %u bytes, "
				      "expected %s #%u of %u bytes", b->coord, op_names[h.op], h.seq,
				      h.len, op_names[c->op], b->seq, c->reply_len);
	rc = boot_read_exact(b->fd, c->reply_dst, c->reply_len, deadline);
	return rc ? boot_peer_io_error(b, rc, err, len) : 0;
}

/* Sends this rank's COLL, then waits for the answer.  A failed send may
 * hide an ABORT from rank 0 already waiting: read that first. */
static int peer_coll(struct lb_boot *b, const struct coll *c, char *err, size_t len)
{
	double deadline = boot_now() + b->timeout;
	struct hdr h = { .type = T_COLL, .op = c->op, .seq = b->seq, .rank = b->rank,
			 .arg = c->arg, .len = c->mine_len };
	int rc = boot_send_msg(b->fd, &h, c->mine, deadline, 1);
	if (rc != 0 && rc != IO_INPUT && !boot_readable_now(b->fd))
		return boot_peer_io_error(b, rc, err, len);
	return peer_reply(b, c, deadline + GRACE, err, len);
}

/* ---- collectives: all ranks ---------------------------------------------- */

/* A failed handle's reason and code. */
static int still_failed(const struct lb_boot *b, char *err, size_t len)
{
	boot_fail(err, len, "%s", b->why);
	return b->code;
}

/* Whatever fails in the exchange itself is another rank's doing: it went
 * away, stopped answering, aborted or broke the protocol (LB_EPEER). */
static int coll_run(struct lb_boot *b, const struct coll *c, char *err, size_t len)
{
	b->seq++;
	if (b->failed)
		return still_failed(b, err, len);
	if (b->size == 1)
		return 0;
	if ((b->rank == 0 ? root_coll(b, c, err, len) : peer_coll(b, c, err, len)) == 0)
		return 0;
	b->code = LB_EPEER;
	return b->code;
}

/* Bad arguments on one rank fail the job: the others are told. */
static int coll_args(struct lb_boot *b, const char *name, size_t n, size_t limit, int bufs_ok,
		     char *err, size_t len)
{
	if (b->failed)
		return still_failed(b, err, len);
	if (n > limit)
		return boot_fail_tell(b, err, len, "rank %u: %s of %zu bytes is over the bootstrap's limit "
				      "of %zu bytes", b->rank, name, n, limit);
	if (!bufs_ok)
		return boot_fail_tell(b, err, len, "rank %u: %s of %zu bytes with a NULL buffer",
				      b->rank, name, n);
	return 0;
}

int lb_boot_barrier(struct lb_boot *b, char *err, size_t errlen)
{
	struct coll c = { .op = OP_BARRIER };
	return coll_run(b, &c, err, errlen);
}

int lb_boot_allgather(struct lb_boot *b, const void *mine, size_t len, void *all, char *err,
		      size_t errlen)
{
	int rc = coll_args(b, "allgather", len, MSG_CAP / b->size, len == 0 || (mine && all), err,
			   errlen);
	if (rc) {
		b->seq++;
		return rc;
	}
	if (len)
		memmove((uint8_t *)all + (size_t)b->rank * len, mine, len);
	struct coll c = { .op = OP_ALLGATHER, .arg = (uint32_t)len, .mine = mine,
			  .mine_len = (uint32_t)len, .gathered = all, .reply = all,
			  .reply_len = (uint32_t)(len * b->size), .reply_dst = all };
	return coll_run(b, &c, err, errlen);
}

int lb_boot_bcast(struct lb_boot *b, void *buf, size_t len, char *err, size_t errlen)
{
	int rc = coll_args(b, "bcast", len, MSG_CAP, len == 0 || buf, err, errlen);
	if (rc) {
		b->seq++;
		return rc;
	}
	struct coll c = { .op = OP_BCAST, .arg = (uint32_t)len, .reply = buf,
			  .reply_len = (uint32_t)len, .reply_dst = buf };
	return coll_run(b, &c, err, errlen);
}

static int gather_op(struct lb_boot *b, uint8_t op, const void *mine, size_t len, void *all,
		     char *err, size_t errlen)
{
	int bufs_ok = len == 0 || (mine && (all || b->rank != 0));
	int rc = coll_args(b, op_names[op], len, MSG_CAP, bufs_ok, err, errlen);
	if (rc) {
		b->seq++;
		return rc;
	}
	if (len && b->rank == 0)
		memmove(all, mine, len);
	struct coll c = { .op = op, .arg = (uint32_t)len, .mine = mine,
			  .mine_len = (uint32_t)len, .gathered = all };
	return coll_run(b, &c, err, errlen);
}

int lb_boot_gather(struct lb_boot *b, const void *mine, size_t len, void *all, char *err,
		   size_t errlen)
{
	return gather_op(b, OP_GATHER, mine, len, all, err, errlen);
}

/* ---- status agreement ---------------------------------------------------- */

/* Rank 0: "" if every record says ok, else "rank 3: reason (and N more)". */
static void agree_verdict(uint8_t *recs, uint32_t size, char *out, size_t n)
{
	uint32_t first = 0, bad = 0;
	out[0] = '\0';
	for (uint32_t r = 0; r < size; r++) {
		uint8_t *rec = recs + (size_t)r * REC;
		rec[REC - 1] = '\0';
		if (rec[0])
			continue;
		first = bad++ ? first : r;
	}
	if (bad == 0)
		return;
	int k = snprintf(out, n, "rank %u: %s", first, (char *)recs + (size_t)first * REC + 1);
	if (bad > 1 && k > 0 && (size_t)k < n)
		snprintf(out + k, n - (size_t)k, " (and %u more)", bad - 1);
}

/* A gather of {ok, reason} records to rank 0, then a bcast of its verdict. */
int lb_boot_agree(struct lb_boot *b, int ok, const char *reason, char *err, size_t errlen)
{
	uint8_t rec[REC] = { ok ? 1 : 0 };
	char verdict[VERDICT] = "";
	if (!ok)
		boot_copy_line((char *)rec + 1, REC - 1,
			       reason && *reason ? reason : "failed (no reason given)");
	uint8_t *recs = b->rank == 0 ? calloc(b->size, REC) : NULL;
	if (b->rank == 0 && !recs)
		return boot_fail_tell(b, err, errlen, "rank 0: out of memory");
	int rc = gather_op(b, OP_AGREE, rec, REC, recs, err, errlen);
	if (rc == 0 && b->rank == 0)
		agree_verdict(recs, b->size, verdict, sizeof(verdict));
	free(recs);
	if (rc == 0) {
		struct coll c = { .op = OP_AGREE, .arg = VERDICT, .reply = verdict,
				  .reply_len = VERDICT, .reply_dst = verdict };
		rc = coll_run(b, &c, err, errlen);
	}
	verdict[VERDICT - 1] = '\0';
	if (rc == 0 && verdict[0]) {
		boot_fail(err, errlen, "%s", verdict);
		return ok ? LB_EPEER : -1;
	}
	return rc;
}
