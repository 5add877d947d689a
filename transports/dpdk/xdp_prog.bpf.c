/* The XDP program of lanebench's af_xdp lanes (dpdk.c, "Lanes' PMD"),
 * built with clang -target bpf when clang is found (meson.build) and
 * handed to net_af_xdp as its xdp_prog: our frames (ethertype 0x88B5,
 * LB_FRAME_ETHER_TYPE in frame.h) go to the lane's socket on their queue,
 * everything else to the kernel as if no program were there -- ARP, IP,
 * `lanebench check`'s probes.  (The PMD's own program, libxdp's default,
 * takes every frame of the queue.) */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define LB_ETHER_TYPE 0x88B5
#define ETHER_TYPE_OFFSET 12 /* after the destination and source MACs */

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP); /* the PMD looks it up by this name */
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

SEC("xdp")
int lb_xdp(struct xdp_md *ctx)
{
	unsigned char *data = (unsigned char *)(long)ctx->data;
	unsigned char *end = (unsigned char *)(long)ctx->data_end;
	if (data + ETHER_TYPE_OFFSET + 2 > end)
		return XDP_PASS;
	__u16 type = (__u16)(data[ETHER_TYPE_OFFSET] << 8 | data[ETHER_TYPE_OFFSET + 1]);
	if (type != LB_ETHER_TYPE)
		return XDP_PASS;
	return (int)bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

char lb_xdp_license[] SEC("license") = "GPL";
