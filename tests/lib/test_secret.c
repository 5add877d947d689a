/* lib/secret.h: the constant-time compare's answers (its timing is by
 * construction: one pass over cap bytes, no early exit). */
#include "check.h"
#include "lib/secret.h"

#define CAP 128

int main(void)
{
	char token[CAP + 1], other[CAP + 1];
	memset(token, 'x', CAP);
	token[CAP] = '\0';
	memcpy(other, token, sizeof(other));

	CHECK(lb_secret_equal("job-1", 5, "job-1", 5, CAP), "equal tokens");
	CHECK(lb_secret_equal("", 0, "", 0, CAP), "two empty tokens are equal");
	CHECK(lb_secret_equal(token, CAP, other, CAP, CAP), "equal tokens of cap bytes");
	CHECK(!lb_secret_equal("job-1", 5, "job-2", 5, CAP), "last byte differs");
	CHECK(!lb_secret_equal("Job-1", 5, "job-1", 5, CAP), "first byte differs");
	other[CAP - 1] = 'y';
	CHECK(!lb_secret_equal(token, CAP, other, CAP, CAP), "the cap-th byte differs");

	/* length: a prefix, or the same bytes padded with zeros, is another token */
	CHECK(!lb_secret_equal("job", 3, "job-1", 5, CAP), "a prefix is not the token");
	CHECK(!lb_secret_equal("job-1", 5, "job", 3, CAP), "the token is not its prefix");
	CHECK(!lb_secret_equal("job\0\0", 5, "job", 3, CAP), "zero padding changes the length");
	CHECK(!lb_secret_equal("", 0, "j", 1, CAP), "empty against one byte");
	CHECK(!lb_secret_equal(token, CAP + 1, token, CAP + 1, CAP),
	      "lengths above the cap are never equal");
	CHECK(lb_secret_equal("abc", 3, "abd", 3, 2) == 0,
	      "a length above the cap is never equal, even when the first cap bytes are");
	return check_status("secret");
}
