/* placeholder until the expect branch lands: the API the lead codes against */
#ifndef LB_CHECK_EXPECT_H
#define LB_CHECK_EXPECT_H
#include <stddef.h>
#include <stdint.h>
#include "transports/port.h"
enum lb_level { LB_PASS = 0, LB_WARN = 1, LB_FAIL = 2, LB_ERROR = 3 };
struct lb_expect_rule {
	int32_t lane; char nic[32]; char driver[32]; double speed_bps; int32_t mtu; int32_t pcie_width;
	double pcie_gts; double min_bw; double min_bw_bps; double max_lat; char firmware[48]; uint32_t line;
};
struct lb_expect { char path[256]; struct lb_expect_rule *rules; size_t n; };
int lb_parse_fraction(const char *text, double *out, char *err, size_t len);
int lb_expect_load(const char *path, struct lb_expect *e, char *err, size_t len);
void lb_expect_free(struct lb_expect *e);
void lb_expect_for(const struct lb_expect *e, uint32_t lane, const char *nic, const char *driver,
		   struct lb_expect_rule *out);
typedef void (*lb_finding_fn)(void *ctx, uint32_t rank, uint32_t lane, enum lb_level level,
			      const char *reason);
void lb_judge_inventory(const struct lb_port_facts *facts, const char *const *nics, uint32_t size,
			uint32_t lanes, const struct lb_expect *e, lb_finding_fn fn, void *ctx);
double lb_expected_speed(const struct lb_port_facts *facts, uint32_t size, uint32_t lanes,
			 const struct lb_expect *e, const char *const *nics, uint32_t rank,
			 uint32_t lane, const char **from, uint32_t *line);
#endif
