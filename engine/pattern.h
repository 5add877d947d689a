/* The broadcast payload: a pattern that changes with every iteration, so a
 * stale or misplaced byte from an earlier iteration cannot pass the check. */
#ifndef LB_PATTERN_H
#define LB_PATTERN_H

#include <stdint.h>

void lb_pattern_fill(uint8_t *buf, uint64_t len, uint32_t iteration);

/* Bytes [off, off + len) of the iteration's pattern, in their place: what
 * lb_pattern_fill writes there (a collective's owners fill their blocks). */
void lb_pattern_fill_range(uint8_t *buf, uint64_t off, uint64_t len, uint32_t iteration);

/* 0 when buf holds the iteration's pattern; else -1 with the first wrong
 * offset in *bad. */
int lb_pattern_check(const uint8_t *buf, uint64_t len, uint32_t iteration,
		     uint64_t *bad);

#endif
