/* The DPDK transport's wire format, as a pure module (no DPDK): encode and
 * parse one Ethernet frame, so the parser can be unit-tested and fuzzed.
 *
 * A frame is an Ethernet II header with our ethertype (0x88B5, IEEE local
 * experimental) and a 40-byte big-endian header:
 *   0 version (1)  1 type (DATA, ACK)  2 lane (16)  4 source rank (32)
 *   8 job (64: FNV-1a of the job token)  16 seq (32)  20 msg (32)
 *   24 offset (64)  32 length (32)  36 destination rank (32)
 * DATA: seq is the frame's sequence number on its (peer, lane) channel, msg
 * the index of the message (the sender's count of sends posted on the channel),
 * offset and length the payload's place in the registered buffer; the
 * payload follows the header.  ACK: seq is the cumulative ack (every seq
 * before it arrived), followed by a 256-bit selective-ack bitmap (bit i:
 * seq + 1 + i arrived).  Ethernet pads short frames, so a frame may be
 * longer than header + payload, never shorter. */
#ifndef LB_DPDK_FRAME_H
#define LB_DPDK_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define LB_FRAME_ETHER_TYPE 0x88B5
#define LB_FRAME_WIRE_VERSION 1
#define LB_FRAME_ETH_LEN 14
#define LB_FRAME_HDR_LEN 40
#define LB_FRAME_SACK_BITS 256
#define LB_FRAME_SACK_LEN (LB_FRAME_SACK_BITS / 8)
#define LB_FRAME_OVERHEAD (LB_FRAME_ETH_LEN + LB_FRAME_HDR_LEN)
#define LB_FRAME_ACK_LEN (LB_FRAME_OVERHEAD + LB_FRAME_SACK_LEN)
/* The largest MTU (Ethernet header not counted) frames are made for: its
 * frame, 64,014 bytes, and the af_packet ring slot that holds it fit DPDK's
 * 16-bit mbuf lengths.  A DATA frame carries at most LB_FRAME_PAYLOAD_MAX. */
#define LB_FRAME_MTU_MAX 64000
#define LB_FRAME_PAYLOAD_MAX (LB_FRAME_MTU_MAX - LB_FRAME_HDR_LEN)

enum lb_frame_type { LB_FRAME_DATA = 1, LB_FRAME_ACK = 2 };

/* Why a frame was dropped; LB_FRAME_OK for one to use.  dpdk.c counts
 * verdict v as its drop reason v - 1 (enum drop): keep the orders alike. */
enum lb_frame_verdict {
	LB_FRAME_OK = 0,
	LB_FRAME_SHORT,     /* shorter than its headers or its payload */
	LB_FRAME_ETHERTYPE, /* not ours */
	LB_FRAME_VERSION,   /* ours, another version */
	LB_FRAME_JOB,       /* another job's token */
	LB_FRAME_NOT_MINE,  /* another destination, lane, or an unknown source */
	LB_FRAME_MALFORMED, /* unknown type, payload on an ACK, beyond LB_FRAME_PAYLOAD_MAX */
	LB_FRAME_RANGE,     /* outside the registered buffer or the posted receive */
	LB_FRAME_VERDICTS
};

struct lb_frame {
	uint8_t dst_mac[6], src_mac[6];
	uint8_t type;
	uint16_t lane;
	uint32_t src, dst;
	uint64_t job;
	uint32_t seq, msg;
	uint64_t offset;
	uint32_t len;
	uint8_t sack[LB_FRAME_SACK_LEN]; /* ACK only */
	const uint8_t *payload;          /* DATA: points into the parsed frame */
};

/* What a receiver accepts: its job, rank and lane, the job size and the
 * registered buffer's length. */
struct lb_frame_expect {
	uint64_t job;
	uint32_t rank, size;
	uint16_t lane;
	uint64_t buflen;
};

/* FNV-1a, 64 bits, of a NUL-terminated job token. */
uint64_t lb_frame_job_hash(const char *token);

/* Parses frame[0..len); fills *f (payload points into frame) only when OK.
 * Never reads beyond len. */
enum lb_frame_verdict lb_frame_parse(const uint8_t *frame, size_t len,
				     const struct lb_frame_expect *e, struct lb_frame *f);

/* Writes the Ethernet header and our header (plus the SACK bitmap for an
 * ACK) to out; returns the bytes written (the payload of a DATA frame goes
 * after them).  out holds at least LB_FRAME_ACK_LEN bytes. */
size_t lb_frame_encode(const struct lb_frame *f, uint8_t *out);

/* Is [off, off + len) inside [lo, lo + span)?  Overflow-safe. */
int lb_frame_in_range(uint64_t off, uint64_t len, uint64_t lo, uint64_t span);

/* Short name of a verdict, for counters and messages. */
const char *lb_frame_verdict_name(enum lb_frame_verdict v);

#endif
