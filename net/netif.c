// SPDX-License-Identifier: MIT
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "net/netif.h"

int netif_addr(const char *ifname, uint32_t *ip, uint8_t mac[6],
	       char *err, size_t errlen)
{
	struct ifreq ifr;
	int fd, ret = 0;

	if (strlen(ifname) >= IFNAMSIZ) {
		snprintf(err, errlen, "interface name '%s' too long", ifname);
		return -EINVAL;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -errno;
	}
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		ret = -errno;
		snprintf(err, errlen, "no interface '%s' here (wrong name, or run in the "
			 "gateway's namespace: netns/rig.sh)", ifname);
		goto out;
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	if (ioctl(fd, SIOCGIFADDR, &ifr)) {
		ret = -errno;
		snprintf(err, errlen, "interface '%s' has no IPv4 address", ifname);
		goto out;
	}
	*ip = ntohl(((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr.s_addr);
out:
	close(fd);
	return ret;
}

int netif_on_link(const char *ifname, uint32_t ip, char *net, size_t netlen)
{
	struct ifreq ifr;
	uint32_t addr, mask;
	struct in_addr a;
	int fd, ret = -EINVAL;

	if (strlen(ifname) >= IFNAMSIZ)
		return ret;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, ifname);
	if (ioctl(fd, SIOCGIFADDR, &ifr)) {
		ret = -errno;
		goto out;
	}
	addr = ntohl(((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr.s_addr);
	if (ioctl(fd, SIOCGIFNETMASK, &ifr)) {
		ret = -errno;
		goto out;
	}
	mask = ntohl(((struct sockaddr_in *)&ifr.ifr_netmask)->sin_addr.s_addr);
	ret = (ip & mask) == (addr & mask);
	a.s_addr = htonl(addr & mask);
	snprintf(net, netlen, "%s/%d", inet_ntoa(a), __builtin_popcount(mask));
out:
	close(fd);
	return ret;
}

int netif_neigh_mac(const char *ifname, uint32_t ip, uint8_t mac[6],
		    char *err, size_t errlen)
{
	char line[256], addr[64], hw[64], dev[64];
	struct in_addr a = { .s_addr = htonl(ip) };
	unsigned int type, flags, b[6];
	FILE *f = fopen("/proc/net/arp", "r");

	if (!f) {
		snprintf(err, errlen, "/proc/net/arp: %s", strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s 0x%x 0x%x %63s %*s %63s", addr, &type, &flags,
			   hw, dev) != 5)
			continue;
		if (strcmp(addr, inet_ntoa(a)) || strcmp(dev, ifname) || !(flags & 0x2))
			continue;
		if (sscanf(hw, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
			   &b[5]) != 6)
			continue;
		for (int i = 0; i < 6; i++)
			mac[i] = (uint8_t)b[i];
		fclose(f);
		return 0;
	}
	fclose(f);
	snprintf(err, errlen, "no neighbour entry for %s on %s: add one "
		 "(ip neigh add %s lladdr MAC dev %s nud permanent) or pass --exchange-mac",
		 inet_ntoa(a), ifname, inet_ntoa(a), ifname);
	return -ENOENT;
}

int netif_mtu(const char *ifname)
{
	struct ifreq ifr;
	int fd, ret;

	if (strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, ifname);
	ret = ioctl(fd, SIOCGIFMTU, &ifr) ? -errno : ifr.ifr_mtu;
	close(fd);
	return ret;
}

int netif_queues(const char *ifname, unsigned int *rx, unsigned int *tx)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr;
	int fd, ret;

	if (strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, ifname);
	ifr.ifr_data = (void *)&ch;
	ret = ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
	close(fd);
	/* A device that reports no channels has its one queue each way. */
	if (ret == -EOPNOTSUPP) {
		*rx = *tx = 1;
		return 0;
	}
	if (ret)
		return ret;
	/* Channels are "rx" or "tx" only, or "combined" rx+tx pairs, or both. */
	*rx = ch.rx_count + ch.combined_count;
	*tx = ch.tx_count + ch.combined_count;
	if (!*rx)
		*rx = 1;
	if (!*tx)
		*tx = 1;
	return 0;
}

int netif_rx_queues(const char *ifname)
{
	unsigned int rx, tx;
	int ret = netif_queues(ifname, &rx, &tx);

	return ret ? ret : (int)rx;
}

int netif_routed(uint32_t ip)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9),
				 .sin_addr.s_addr = htonl(ip) };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return -errno;
	/* A UDP connect sends nothing: it only asks the routing table. */
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)))
		ret = -errno;
	close(fd);
	return ret;
}
