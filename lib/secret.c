/* Constant-time comparison of secrets (secret.h). */
#include "secret.h"

int lb_secret_equal(const void *a, size_t alen, const void *b, size_t blen, size_t cap)
{
	/* volatile: the compiler may not stop at the first difference */
	const volatile unsigned char *pa = a, *pb = b;
	unsigned diff = (alen != blen) | (alen > cap);
	for (size_t i = 0; i < cap; i++) {
		unsigned x = i < alen ? pa[i] : 0, y = i < blen ? pb[i] : 0;
		diff |= x ^ y;
	}
	return diff == 0;
}
