/* SPDX-License-Identifier: MIT */
/* What a path that writes its own frames must know of the interface and its neighbour. */
#ifndef NET_NETIF_H
#define NET_NETIF_H

#include <stddef.h>
#include <stdint.h>

/* IPv4 address (host order) and MAC of ifname. */
int netif_addr(const char *ifname, uint32_t *ip, uint8_t mac[6],
	       char *err, size_t errlen);
/*
 * Is @ip (host order) on @ifname's own network?  1 yes, 0 no (then @net
 * holds that network as A.B.C.D/N), -errno when the interface cannot say.
 */
int netif_on_link(const char *ifname, uint32_t ip, char *net, size_t netlen);
/* MAC of ip (host order) from the neighbour table (/proc/net/arp). */
int netif_neigh_mac(const char *ifname, uint32_t ip, uint8_t mac[6],
		    char *err, size_t errlen);

/* Is there a route to @ip (host order) from this namespace?  0, or -errno. */
int netif_routed(uint32_t ip);

/*
 * The receive queues in use on @ifname (ethtool's channels, rx and
 * combined; a device that has none to report has one), or -errno.  Read
 * through the namespace's own socket, so it is right under nsenter, where
 * /sys still shows the namespace the caller came from.
 */
int netif_rx_queues(const char *ifname);
/* Both counts, receive and transmit.  0, or -errno. */
int netif_queues(const char *ifname, unsigned int *rx, unsigned int *tx);

/* The interface's MTU, or -errno. */
int netif_mtu(const char *ifname);

#endif /* NET_NETIF_H */
