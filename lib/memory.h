/* How much memory this process may still take, as far as the system says,
 * so that a command can refuse work that cannot fit before allocating
 * (and being killed by the OOM killer half way). */
#ifndef LB_MEMORY_H
#define LB_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/* The smallest of: MemAvailable (/proc/meminfo), the room left in this
 * process's memory cgroup (v2 memory.max - memory.current, or v1
 * memory.limit_in_bytes - memory.usage_in_bytes) and the soft RLIMIT_AS
 * and RLIMIT_DATA.  *what names the one that set it ("MemAvailable").
 * Returns UINT64_MAX (what "no limit known") when nothing can be read. */
uint64_t lb_mem_available(const char **what);

/* malloc for large arrays read in random order (the simulator's): from
 * 2 MiB up, aligned and advised to the kernel as huge pages, so that a
 * random access costs a cache miss and not a page walk too.  Free with
 * free().  NULL when out of memory. */
void *lb_alloc_large(size_t bytes);

#endif
