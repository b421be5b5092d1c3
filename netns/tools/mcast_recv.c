// SPDX-License-Identifier: MIT
/*
 * mcast_recv: a plain kernel UDP receiver for checking the rig.
 *
 *   mcast_recv GROUP PORT IFADDR [COUNT [TIMEOUT_MS]]
 *
 * Joins GROUP on the interface that has IFADDR, prints "joined" once the
 * membership is in place (so a test can start sending without racing the
 * join), then prints one line per datagram:
 *	<len> <source-ip>:<source-port> <payload, non-printable bytes as '.'>
 * Exits 0 after COUNT datagrams (default 1), 1 if TIMEOUT_MS (default 3000)
 * passes without one, 2 on a usage or socket error.  Deliberately not
 * python or socat: nothing beyond a C compiler is assumed on the machine.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int open_member(const char *group, unsigned long port, const char *ifaddr)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct ip_mreqn mreq = { 0 };
	int one = 1, fd;

	if (inet_pton(AF_INET, group, &sin.sin_addr) != 1 ||
	    !IN_MULTICAST(ntohl(sin.sin_addr.s_addr))) {
		fprintf(stderr, "mcast_recv: '%s' is not a multicast group\n", group);
		return -1;
	}
	mreq.imr_multiaddr = sin.sin_addr;
	if (inet_pton(AF_INET, ifaddr, &mreq.imr_address) != 1) {
		fprintf(stderr, "mcast_recv: bad interface address '%s'\n", ifaddr);
		return -1;
	}
	sin.sin_port = htons((uint16_t)port);

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("mcast_recv: socket");
		return -1;
	}
	/* Bound to the group, not INADDR_ANY: only the feed arrives here. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("mcast_recv: bind");
		goto fail;
	}
	if (setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof(mreq))) {
		perror("mcast_recv: IP_ADD_MEMBERSHIP");
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

int main(int argc, char **argv)
{
	unsigned long port, count = 1, timeout_ms = 3000, got = 0;
	char buf[2048], src[INET_ADDRSTRLEN];
	int fd;

	if (argc < 4 || argc > 6 ||
	    parse_ulong(argv[2], 65535, &port) || !port ||
	    (argc > 4 && (parse_ulong(argv[4], 1000000, &count) || !count)) ||
	    (argc > 5 && parse_ulong(argv[5], 3600000, &timeout_ms))) {
		fprintf(stderr, "usage: mcast_recv GROUP PORT IFADDR [COUNT [TIMEOUT_MS]]\n");
		return 2;
	}
	fd = open_member(argv[1], port, argv[3]);
	if (fd < 0)
		return 2;
	printf("joined\n");
	fflush(stdout);

	while (got < count) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct sockaddr_in from;
		socklen_t fromlen = sizeof(from);
		ssize_t n, i;
		int r;

		r = poll(&pfd, 1, (int)timeout_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			perror("mcast_recv: poll");
			break;
		}
		if (r == 0) {
			fprintf(stderr, "mcast_recv: timeout after %lu of %lu datagrams\n",
				got, count);
			close(fd);
			return 1;
		}
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fromlen);
		if (n < 0) {
			perror("mcast_recv: recvfrom");
			break;
		}
		for (i = 0; i < n; i++)
			if (buf[i] < 0x20 || buf[i] > 0x7e)
				buf[i] = '.';
		inet_ntop(AF_INET, &from.sin_addr, src, sizeof(src));
		printf("%zd %s:%u %.*s\n", n, src, ntohs(from.sin_port), (int)n, buf);
		fflush(stdout);
		got++;
	}
	close(fd);
	return got == count ? 0 : 2;
}
