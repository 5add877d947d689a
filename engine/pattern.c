/* Pattern bytes: splitmix64 of (iteration, 8-byte word index). */
#include "pattern.h"

#include <string.h>

static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t word(uint32_t iteration, uint64_t index)
{
	return mix(((uint64_t)iteration << 40) ^ index);
}

void lb_pattern_fill(uint8_t *buf, uint64_t len, uint32_t iteration)
{
	uint64_t words = len / 8;
	for (uint64_t i = 0; i < words; i++) {
		uint64_t w = word(iteration, i);
		memcpy(buf + i * 8, &w, 8);
	}
	uint64_t w = word(iteration, words);
	memcpy(buf + words * 8, &w, len % 8);
}

int lb_pattern_check(const uint8_t *buf, uint64_t len, uint32_t iteration,
		     uint64_t *bad)
{
	uint64_t words = len / 8;
	for (uint64_t i = 0; i <= words; i++) {
		uint64_t w = word(iteration, i), n = i < words ? 8 : len % 8;
		if (memcmp(buf + i * 8, &w, n) == 0)
			continue;
		for (uint64_t j = 0; j < n; j++)
			if (buf[i * 8 + j] != ((uint8_t *)&w)[j]) {
				*bad = i * 8 + j;
				return -1;
			}
	}
	return 0;
}

void lb_pattern_fill_range(uint8_t *buf, uint64_t off, uint64_t len, uint32_t iteration)
{
	for (uint64_t at = off, end = off + len; at < end;) {
		uint64_t i = at / 8, from = at % 8, n = 8 - from < end - at ? 8 - from : end - at;
		uint64_t w = word(iteration, i);
		memcpy(buf + at, (const uint8_t *)&w + from, n);
		at += n;
	}
}
