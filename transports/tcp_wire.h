/* The tcp transport's address blob and connection hello: what tcp.c
 * publishes and what a connection must present, in one place so that its
 * tests can find a lane's listener and speak (or fake) the hello. */
#ifndef LB_TCP_WIRE_H
#define LB_TCP_WIRE_H

#include <net/if.h>
#include <stdint.h>

#define LB_TCP_HELLO_MAGIC 0x4c424843u   /* "LBHC" */
/* The acceptor's answer to a hello it admits (4 bytes, network order):
 * without it the connecting rank knows it was dropped and connects again. */
#define LB_TCP_WELCOME_MAGIC 0x4c424857u /* "LBHW" */
/* Its answer to a complete hello it refuses (another job's token, a rank
 * it does not expect): the connecting rank gives up and says so, instead
 * of connecting again until its timeout. */
#define LB_TCP_REFUSED_MAGIC 0x4c424852u /* "LBHR" */
#define LB_TCP_TOKEN_MAX 128

/* A lane's address, the blob local_address() writes. */
struct lb_tcp_addr {
	uint32_t ip; /* network order */
	uint16_t port;
	char ifname[IF_NAMESIZE];
};

/* The first bytes of every data connection, from the connecting rank;
 * integers in network order, the token zero-padded. */
struct lb_tcp_hello {
	uint32_t magic, lane, rank;
	char token[LB_TCP_TOKEN_MAX];
};

#endif
