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
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/opt.h"

static const struct opt opts[] = {
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "mcast_recv",
	.usage = "GROUP PORT IFADDR [COUNT [TIMEOUT_MS]]",
	.about =
"A plain kernel UDP receiver for checking the rig: joins GROUP on the\n"
"interface that has IFADDR, prints \"joined\", then one line per datagram\n"
"(length, source, payload with non-printable bytes as '.') until COUNT\n"
"(default 1) arrived or TIMEOUT_MS (default 3000) passed without one.\n",
	.more = "Exit status: 0 COUNT datagrams, 1 a timeout, 2 bad usage or a socket error.\n",
	.opts = opts,
};

/* The arguments after the options; 0, or 2 after a usage error. */
static int args(int argc, char **argv, int first, uint64_t *port, uint64_t *count,
		uint64_t *timeout_ms)
{
	int n = argc - first;

	if (n < 3 || n > 5)
		return opt_error(&prog, "the arguments are %s", prog.usage);
	if (opt_parse_u64(argv[first + 1], 1, 65535, port))
		return opt_error(&prog, "PORT wants 1..65535: '%s'", argv[first + 1]);
	if (n > 3 && opt_parse_u64(argv[first + 3], 1, 1000000, count))
		return opt_error(&prog, "COUNT wants 1..1000000: '%s'", argv[first + 3]);
	if (n > 4 && opt_parse_u64(argv[first + 4], 0, 3600000, timeout_ms))
		return opt_error(&prog, "TIMEOUT_MS wants 0..3600000: '%s'", argv[first + 4]);
	return 0;
}

static int open_member(const char *group, uint64_t port, const char *ifaddr)
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
	uint64_t port, count = 1, timeout_ms = 3000, got = 0;
	char buf[2048], src[INET_ADDRSTRLEN];
	int fd, first, ret;

	ret = opt_parse(&prog, NULL, argc, argv, &first);
	if (!ret)
		ret = args(argc, argv, first, &port, &count, &timeout_ms);
	if (ret)
		return ret == 1 ? 0 : 2;
	fd = open_member(argv[first], port, argv[first + 2]);
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
			fprintf(stderr, "mcast_recv: timeout after %" PRIu64 " of %" PRIu64
				" datagrams\n", got, count);
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
