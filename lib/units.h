/* Parsing and formatting of the units users type: sizes, counts, lists and
 * ranges of them, durations and rates.  Pure functions: no printing, no
 * global state.  Values are stored raw (bytes, seconds, bytes per second).
 *
 * Every parser returns 0 on success, or -1 with a one-line message in err
 * that names the bad value in single quotes and says what was expected,
 * e.g. "bad size '12Q': expected a whole number of bytes with optional K, M,
 * G, T suffix (powers of 1024)".  On failure *out is left unchanged. */
#ifndef LB_UNITS_H
#define LB_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Most values one list (and so one sweep axis) may expand to. */
#define LB_LIST_MAX 4096

/* Bytes, >= 1: "4096", "4K", "4k", "4KiB", "1.5M" (when whole bytes).
 * K, M, G, T are powers of 1024; "KB"/"MB" are refused as ambiguous. */
int lb_parse_size(const char *s, uint64_t *out, char *err, size_t errlen);

/* Comma list of sizes and ranges "A:B" = A, 2A, 4A, ... while <= B
 * (A <= B), "A:B:F" = A, FA, F^2 A, ... (F a whole number >= 2, as
 * nccl-tests' -f).  "4K,8:64M", "4K:16M:4".  *out is malloc'd (caller
 * frees), *n >= 1. */
int lb_parse_size_list(const char *s, uint64_t **out, size_t *n,
		       char *err, size_t errlen);

/* A plain decimal integer in [min, max], no suffix. */
int lb_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out,
		  char *err, size_t errlen);

/* Like lb_parse_size_list for plain integers >= 1: "2:1024", "8,12,32". */
int lb_parse_count_list(const char *s, uint64_t **out, size_t *n,
			char *err, size_t errlen);

/* Ranks of a job of `ranks` ranks: "all" (0 .. ranks-1), or a comma list
 * of ranks and ranges "A-B" (every rank from A to B, A <= B), each below
 * ranks: "0,2-3".  Kept in the order given, duplicates included; at most
 * LB_LIST_MAX values.  *out is malloc'd (caller frees), *n >= 1. */
int lb_parse_rank_list(const char *s, uint64_t ranks, uint64_t **out, size_t *n,
		       char *err, size_t errlen);

/* The syntax of a rank list alone, before the job's size is known. */
int lb_check_rank_list(const char *s, char *err, size_t errlen);

/* Seconds, >= 0 and finite: "5us", "1.5ms", "2s", "100ns", "1e-6" (a plain
 * number is seconds).  For timeouts, which bound themselves. */
int lb_parse_seconds(const char *s, double *out, char *err, size_t errlen);

/* The longest burn-in (lanebench check --duration): a week. */
#define LB_WALL_TIME_MAX (7 * 24 * 3600.0)

/* A span of wall-clock time, more than 0 and at most LB_WALL_TIME_MAX:
 * the forms of lb_parse_seconds plus minutes and hours, "90s", "10m",
 * "10min", "1.5h", "2" (seconds).  For how long a run lasts, not for a
 * latency ("10m" here is ten minutes, never ten milliseconds). */
int lb_parse_wall_time(const char *s, double *out, char *err, size_t errlen);

/* The physical range of a time the models compute with (a latency, a
 * per-message occupation or overhead, a barrier): 0, or from 1 ns to 1
 * hour.  Beyond it no network is described, and what the solvers and
 * simulators would meet (1e308 s, subnormal times) breaks their
 * arithmetic: such values are refused where they enter. */
#define LB_TIME_MIN 1e-9
#define LB_TIME_MAX 3600.0

/* lb_parse_seconds within 0 or [LB_TIME_MIN, LB_TIME_MAX]. */
int lb_parse_model_time(const char *s, double *out, char *err, size_t errlen);

/* The physical range of a link or NIC rate, bytes per second: 1 kbit/s to
 * 10 Tbit/s (as scripts/cluster bounds the rates it shapes). */
#define LB_RATE_MIN 125.0
#define LB_RATE_MAX 1.25e12

/* Bytes per second in [LB_RATE_MIN, LB_RATE_MAX].  Bit rates as tc writes
 * them, decimal and case-insensitive: "10gbit", "200mbit", "100kbit",
 * "9600bit"; byte rates, decimal: "1.25GB/s", "125MB/s", "10KB/s",
 * "500B/s". */
int lb_parse_rate(const char *s, double *bytes_per_s, char *err, size_t errlen);

/* "4K", "16M", "1G", "3K" when exact in binary units, else bytes: "1536"
 * is "1536" (1.5K is not exact), "1000" stays "1000". */
void lb_format_size(uint64_t bytes, char *buf, size_t len);

/* Seconds for humans, 4 significant digits in the unit that fits:
 * "12.35 us", "1.5 ms", "2 s", "0 s"; NaN (not measured) "-". */
void lb_format_seconds(double seconds, char *buf, size_t len);

/* A port's link speed as an inventory shows it: "100G", "25G", "100M";
 * "-" unknown (NaN). */
void lb_format_link_speed(double bits_per_second, char *buf, size_t len);

/* An amount of memory, one decimal in the binary unit that fits:
 * "21.9 GiB", "512.0 B" (memory sizes are rarely exact powers of two). */
void lb_format_memory(uint64_t bytes, char *buf, size_t len);

#endif
