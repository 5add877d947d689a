#include "hostname.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The network namespace this process runs in, when it has a name (the
 * emulated cluster's hosts share one host name but not their namespace). */
static int netns_name(char *out, size_t len)
{
	struct stat self, st;
	char path[300];
	DIR *d = opendir("/run/netns");
	int found = 0;
	if (!d || stat("/proc/self/ns/net", &self) != 0) {
		if (d)
			closedir(d);
		return 0;
	}
	for (struct dirent *e; !found && (e = readdir(d));) {
		snprintf(path, sizeof(path), "/run/netns/%s", e->d_name);
		found = e->d_name[0] != '.' && stat(path, &st) == 0 && st.st_ino == self.st_ino &&
			st.st_dev == self.st_dev;
		if (found) {
			size_t n = strnlen(e->d_name, len - 1);
			memcpy(out, e->d_name, n);
			out[n] = '\0';
		}
	}
	closedir(d);
	return found;
}

/* $LANEBENCH_HOST, else the named network namespace, else the host name. */
void lb_host_name(char *out, size_t len)
{
	const char *env = getenv("LANEBENCH_HOST");
	if (env && *env)
		snprintf(out, len, "%s", env);
	else if (!netns_name(out, len) && gethostname(out, len) != 0)
		snprintf(out, len, "?");
	out[len - 1] = '\0';
}
