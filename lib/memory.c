/* See memory.h.  Every source is optional: a file that cannot be read or
 * a limit that is "max" simply does not count. */
#include "memory.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>

/* Cgroup limits above this are "no limit" (v1 prints ~2^63). */
#define NO_LIMIT (1ull << 60)

struct bound {
	uint64_t bytes;
	const char *what;
};

static void consider(struct bound *b, uint64_t bytes, const char *what)
{
	if (bytes < b->bytes) {
		b->bytes = bytes;
		b->what = what;
	}
}

/* The first number in the file; 0 when unreadable or not a number ("max"). */
static uint64_t read_number(const char *path)
{
	unsigned long long v = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

static uint64_t mem_available(void)
{
	char line[256];
	unsigned long long kib = 0;
	FILE *f = fopen("/proc/meminfo", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
			break;
	fclose(f);
	return kib * 1024;
}

/* This process's cgroup path for a hierarchy ("" for v2, "memory" for v1),
 * from /proc/self/cgroup; "" when not found (the mount's root is tried). */
static void cgroup_path(const char *controller, char *out, size_t len)
{
	char line[512], *p;
	FILE *f = fopen("/proc/self/cgroup", "r");
	out[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!(p = strchr(line, ':')))
			continue;
		char *controllers = p + 1, *path = strchr(controllers, ':');
		if (!path)
			continue;
		*path++ = '\0';
		if (strcmp(controllers, controller) == 0) {
			snprintf(out, len, "%s", path);
			break;
		}
	}
	if (f)
		fclose(f);
}

/* Limit minus usage of one hierarchy, at this process's cgroup or else at
 * the mount's root (a container's view); 0 when there is no limit. */
static uint64_t cgroup_room(const char *mount, const char *controller, const char *limit,
			    const char *usage)
{
	char path[512], file[1024];
	cgroup_path(controller, path, sizeof(path));
	for (int root = 0; root < 2; root++) {
		snprintf(file, sizeof(file), "%s%s/%s", mount, root ? "" : path, limit);
		uint64_t max = read_number(file);
		if (max == 0 || max >= NO_LIMIT)
			continue;
		snprintf(file, sizeof(file), "%s%s/%s", mount, root ? "" : path, usage);
		uint64_t used = read_number(file);
		return max > used ? max - used : 1;
	}
	return 0;
}

static uint64_t rlimit_bytes(int resource)
{
	struct rlimit rl;
	if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	return rl.rlim_cur;
}

uint64_t lb_mem_available(const char **what)
{
	struct bound b = { UINT64_MAX, "no limit known" };
	uint64_t v;
	if ((v = mem_available()))
		consider(&b, v, "MemAvailable in /proc/meminfo");
	if ((v = cgroup_room("/sys/fs/cgroup", "", "memory.max", "memory.current")))
		consider(&b, v, "the memory cgroup's memory.max");
	if ((v = cgroup_room("/sys/fs/cgroup/memory", "memory", "memory.limit_in_bytes",
			     "memory.usage_in_bytes")))
		consider(&b, v, "the memory cgroup's memory.limit_in_bytes");
	if ((v = rlimit_bytes(RLIMIT_AS)))
		consider(&b, v, "ulimit -v (RLIMIT_AS)");
	if ((v = rlimit_bytes(RLIMIT_DATA)))
		consider(&b, v, "ulimit -d (RLIMIT_DATA)");
	*what = b.what;
	return b.bytes;
}

#define HUGE_PAGE ((size_t)2 << 20)

void *lb_alloc_large(size_t bytes)
{
	void *p = NULL;
	if (bytes < HUGE_PAGE)
		return malloc(bytes ? bytes : 1);
	size_t rounded = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
	if (rounded < bytes || posix_memalign(&p, HUGE_PAGE, rounded))
		return NULL;
	/* Advice only: where THP is off the pages stay small, and that is fine. */
	(void)madvise(p, rounded, MADV_HUGEPAGE);
	return p;
}
