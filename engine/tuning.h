/* The measured tuning table (`lanebench tune` writes it, `bcast -a auto
 * -s auto --tuning FILE` reads it): per message size class, the
 * (algorithm, slice) that measured fastest on one job's network, keyed by
 * what makes a measurement hold elsewhere -- the transport, ranks, lanes,
 * a lane's rate and the platform's hash.  Format (docs/guide/tuning.md):
 *
 *   lanebench-tuning 1
 *   # version: ...            provenance, one "# key: value" per line
 *   key transport=tcp ranks=8 lanes=2 lane_rate=25000000 platform=-
 *   pick 65536 chain 65536 0.000293
 *   ...                       (message bytes, algorithm, slice, seconds)
 *
 * The file is untrusted input: every line is bounded, every field
 * checked, and a bad file is refused naming its line. */
#ifndef LB_ENGINE_TUNING_H
#define LB_ENGINE_TUNING_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "algos/algos.h"
#include "lib/prov.h"

#define LB_TUNING_MAX_PICKS 64   /* size classes: 8 B .. 2^63 by x2 fit */
#define LB_TUNING_MAX_LINE 1024  /* a longer line is not ours */

/* What the picks were measured on.  platform: 16 hex digits, or "-". */
struct lb_tuning_key {
	char transport[32];
	uint32_t ranks, lanes;
	double lane_rate; /* bytes/s; 0: unknown */
	char platform[17];
};

/* One size class: the fastest measured configuration. */
struct lb_tuning_pick {
	uint64_t bytes, slice; /* slice: a power of two >= 1 KiB below bytes, or bytes */
	const struct lb_algo *algo; /* a homogeneous broadcast of the registry */
	double seconds;             /* its measured median */
};

struct lb_tuning {
	struct lb_tuning_key key;
	struct lb_tuning_pick picks[LB_TUNING_MAX_PICKS]; /* by increasing bytes */
	size_t n;
};

/* Reads path into *t.  0, or -1 with "FILE:LINE: what is wrong". */
int lb_tuning_read(const char *path, struct lb_tuning *t, char *err, size_t len);

/* Writes t to out, after prov as "# key: value" lines.  0 or -1 (errno). */
int lb_tuning_write(FILE *out, const struct lb_tuning *t, const struct lb_prov *prov);

/* 0 when t was measured on a job of key, else -1 with the first field
 * that differs ("ranks: the table's 4 != the job's 8"; no commas: it goes
 * into a CSV field).  Lane rates match
 * within 1 % (a transport reports a rate, a user may round it). */
int lb_tuning_matches(const struct lb_tuning *t, const struct lb_tuning_key *job, char *why,
		      size_t len);

/* The pick for a message of `bytes`: the nearest size class (by ratio),
 * its slice fitted to bytes (one slice stays one slice; a power of two
 * is capped at bytes).  NULL, with why, when bytes lies more than x4
 * outside the table's sizes: a class so far off says nothing. */
const struct lb_tuning_pick *lb_tuning_lookup(const struct lb_tuning *t, uint64_t bytes,
					      uint64_t *slice, char *why, size_t len);

#endif
