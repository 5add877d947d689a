/* lb_arp_probe from the command line, for tests/cluster/arpprobe_test.sh:
 *   arpprobe_probe IFNAME SECONDS ADDR...
 * prints "ADDR answered by MAC" or "ADDR silent" per address, in order,
 * then "answered N"; exit 0.  A failure: its reason on stderr, exit 1. */
#include "launch/arpprobe.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: arpprobe_probe IFNAME SECONDS ADDR...\n");
		return 2;
	}
	size_t n = (size_t)(argc - 3);
	int *answered = calloc(n ? n : 1, sizeof(*answered));
	char (*macs)[LB_ARP_MAC_TEXT] = calloc(n ? n : 1, sizeof(*macs));
	char err[256];
	int got = answered && macs ? lb_arp_probe(argv[1], (const char *const *)(argv + 3), n,
						  strtod(argv[2], NULL), answered, macs, err,
						  sizeof(err))
				   : -1;
	if (got < 0) {
		fprintf(stderr, "%s\n", answered && macs ? err : "out of memory");
		free(answered);
		free(macs);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		if (answered[i])
			printf("%s answered by %s\n", argv[3 + i], macs[i]);
		else
			printf("%s silent\n", argv[3 + i]);
	printf("answered %d\n", got);
	free(answered);
	free(macs);
	return 0;
}
