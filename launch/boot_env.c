/* Bootstrap: lb_boot_env, the job's configuration from the environment. */
#include "boot_private.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsing ------------------------------------------------------------- */

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* "host:port" (the last colon splits); host may be empty. */
int boot_parse_coord(const char *s, char host[256], uint16_t *port)
{
	const char *colon = strrchr(s, ':');
	uint32_t p;
	if (!colon || strlen(s) >= 256 || parse_u32(colon + 1, 1, 65535, &p))
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	*port = (uint16_t)p;
	return 0;
}

/* ---- environment --------------------------------------------------------- */

static const char *env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

static int env_rank_size(struct lb_boot_cfg *c, char *err, size_t len)
{
	static const char *const pairs[][2] = {
		{ "LANEBENCH_RANK", "LANEBENCH_SIZE" }, { "SLURM_PROCID", "SLURM_NTASKS" },
		{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" }, { "PMI_RANK", "PMI_SIZE" },
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		const char *r = env(pairs[i][0]), *s = env(pairs[i][1]);
		if (!r || !s)
			continue;
		if (parse_u32(s, 1, MAX_RANKS, &c->size))
			return boot_fail(err, len, "%s='%s' is not a job size (expected 1..%u)",
					 pairs[i][1], s, MAX_RANKS);
		if (parse_u32(r, 0, c->size - 1, &c->rank))
			return boot_fail(err, len, "%s='%s' is not a rank (expected 0..%u)",
					 pairs[i][0], r, c->size - 1);
		c->size_from = pairs[i][1];
		return 0;
	}
	if (!env("LANEBENCH_RANK") != !env("LANEBENCH_SIZE"))
		return boot_fail(err, len, "%s is set but %s is not",
				 env("LANEBENCH_RANK") ? "LANEBENCH_RANK" : "LANEBENCH_SIZE",
				 env("LANEBENCH_RANK") ? "LANEBENCH_SIZE" : "LANEBENCH_RANK");
	c->rank = 0;
	c->size = 1;
	return 0;
}

static int env_token(struct lb_boot_cfg *c, char *err, size_t len)
{
	static const char *const ids[][2] = { { "SLURM_JOB_ID", "slurm-" },
		{ "OMPI_MCA_orte_ess_jobid", "ompi-" }, { "PMIX_NAMESPACE", "pmix-" } };
	const char *v = env("LANEBENCH_TOKEN");
	if (v && strlen(v) > TOKEN_MAX)
		return boot_fail(err, len, "LANEBENCH_TOKEN is %zu characters long (at most %u)",
				 strlen(v), TOKEN_MAX);
	if (v) {
		snprintf(c->token, sizeof(c->token), "%s", v);
		return 0;
	}
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		if (!(v = env(ids[i][0])))
			continue;
		if ((size_t)snprintf(c->token, sizeof(c->token), "%s%s", ids[i][1], v) >= sizeof(c->token))
			return boot_fail(err, len, "%s='%s' is too long for a job token (at most %zu characters)",
					 ids[i][0], v, TOKEN_MAX - strlen(ids[i][1]));
		return 0;
	}
	if (c->size > 1)
		return boot_fail(err, len, "LANEBENCH_TOKEN is not set (a job of %u ranks needs it unless "
				 "SLURM_JOB_ID, OMPI_MCA_orte_ess_jobid or PMIX_NAMESPACE is set)", c->size);
	return 0;
}

static int env_timeout(struct lb_boot_cfg *c, char *err, size_t len)
{
	const char *v = env("LANEBENCH_TIMEOUT");
	char *end;
	c->timeout = 60;
	if (!v)
		return 0;
	c->timeout = strtod(v, &end);
	if (*end || !(c->timeout > 0 && c->timeout <= 1e6))
		return boot_fail(err, len, "LANEBENCH_TIMEOUT='%s' is not a timeout (expected seconds, "
				 "0 < t <= 1e6)", v);
	return 0;
}

static int env_coord(struct lb_boot_cfg *c, char *err, size_t len)
{
	const char *v = env("LANEBENCH_COORD");
	char host[256];
	uint16_t port;
	if (c->size == 1)
		return 0;
	if (!v)
		return boot_fail(err, len, "LANEBENCH_COORD is not set (a job of %u ranks needs "
				 "host:port of rank 0's listener)", c->size);
	if (boot_parse_coord(v, host, &port))
		return boot_fail(err, len, "LANEBENCH_COORD='%s' is not host:port (port 1..65535)", v);
	snprintf(c->coord, sizeof(c->coord), "%s", v);
	return 0;
}

int lb_boot_env(struct lb_boot_cfg *cfg, char *err, size_t errlen)
{
	memset(cfg, 0, sizeof(*cfg));
	if (env_rank_size(cfg, err, errlen) || env_timeout(cfg, err, errlen) ||
	    env_token(cfg, err, errlen) || env_coord(cfg, err, errlen))
		return -1;
	return 0;
}
