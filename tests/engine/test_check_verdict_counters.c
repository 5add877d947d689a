/* How lanebench check judges a NIC counter by its name (engine/
 * check_verdict.c): a bad frame is an error (any growth fails), a drop is
 * loss (its share of the packets), traffic and a transport's own counters
 * are not judged here.  What was sent again is judged per pair -- TCP's,
 * and an RDMA port's retries, which the rdma transport's lane_counters
 * hand to the pairs: Soft-RoCE's completer_retry_err grew by one under
 * TCG in a healthy check, and by 19 on a port that sent to one whose MTU
 * dropped its packets -- not that port's fault.  Retries exhausted broke
 * a connection: an error. */
#include "../check.h"
#include "engine/check_private.h"

static void want(const char *name, enum lb_check_counter_kind kind)
{
	static const char *const words[] = { "traffic", "an error", "a drop" };
	enum lb_check_counter_kind got = lb_check_counter_kind(name);
	CHECK(got == kind, "%s: judged as %s, want %s", name, words[got], words[kind]);
}

int main(void)
{
	want("stat:rx_crc_errors", COUNTS_ERRORS);
	want("stat:rx_dropped", COUNTS_DROPS);
	want("stat:rx_packets", COUNTS_TRAFFIC);
	want("tcp:retransmits", COUNTS_TRAFFIC);
	want("rdma:mailbox_sends", COUNTS_TRAFFIC);
	want("rdma:retransmitted", COUNTS_TRAFFIC);
	want("rdma:frames_sent", COUNTS_TRAFFIC);
	want("rdma:symbol_error", COUNTS_ERRORS);
	want("rdma:link_downed", COUNTS_ERRORS);
	want("rdma:port_xmit_discards", COUNTS_DROPS);
	/* Soft-RoCE's hw_counters */
	want("rdma:completer_retry_err", COUNTS_TRAFFIC);
	want("rdma:rcvd_seq_err", COUNTS_TRAFFIC);
	want("rdma:duplicate_request", COUNTS_TRAFFIC);
	want("rdma:out_of_seq_request", COUNTS_TRAFFIC);
	want("rdma:retry_exceeded_err", COUNTS_ERRORS);
	want("rdma:retry_rnr_exceeded_err", COUNTS_ERRORS); /* not a drop for its "rnr" */
	want("rdma:rcvd_rnr_err", COUNTS_DROPS);
	want("ethtool:rx_out_of_buffer", COUNTS_DROPS); /* mlx5's receive drops */
	want("ethtool:rx_lost", COUNTS_DROPS);
	want("ethtool:rx_bad_frames", COUNTS_ERRORS);
	want("rdma:send_err", COUNTS_ERRORS);
	want("rdma:ack_deferred", COUNTS_TRAFFIC); /* "err" inside a word: no error */
	want("ethtool:rx_interrupts", COUNTS_TRAFFIC);
	want("rdma:port_rcv_errors", COUNTS_ERRORS);
	want("xstat:ierrors", COUNTS_ERRORS);
	want("xstat:oerrors", COUNTS_ERRORS);
	want("ethtool:rx_err", COUNTS_ERRORS);
	/* mlx5's */
	want("rdma:local_ack_timeout_err", COUNTS_TRAFFIC);
	want("rdma:packet_seq_err", COUNTS_TRAFFIC);
	want("rdma:out_of_sequence", COUNTS_TRAFFIC);
	return check_status("check-counters");
}
