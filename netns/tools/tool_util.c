// SPDX-License-Identifier: MIT
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "netns/tools/tool_util.h"
#include "proto/be.h"

int tool_parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || *v > max ? -1 : 0;
}

int tool_parse_port(const char *s, uint16_t *port)
{
	uint64_t v;

	if (tool_parse_u64(s, 65535, &v) || !v)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

int tool_parse_hex(const char *s, uint8_t *out, size_t cap, size_t *len)
{
	size_t n = strlen(s), i;

	if (n % 2 || n / 2 > cap)
		return -1;
	for (i = 0; i < n / 2; i++) {
		unsigned int byte;

		if (sscanf(s + 2 * i, "%2x", &byte) != 1)
			return -1;
		out[i] = (uint8_t)byte;
	}
	*len = n / 2;
	return 0;
}

void tool_set_rcvbuf(int fd, int bytes)
{
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}

int tool_open_feed(const char *prog, const char *addr, uint16_t port,
		   const char *ifaddr, int sock_flags, int rcvbuf)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, fd;

	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1) {
		fprintf(stderr, "%s: '%s' is not an IPv4 address\n", prog, addr);
		return -1;
	}
	fd = socket(AF_INET, SOCK_DGRAM | sock_flags, 0);
	if (fd < 0) {
		fprintf(stderr, "%s: socket: %s\n", prog, strerror(errno));
		return -1;
	}
	/* A high rate must not overflow the socket between two reads. */
	tool_set_rcvbuf(fd, rcvbuf);
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		fprintf(stderr, "%s: bind %s:%u: %s\n", prog, addr, port, strerror(errno));
		goto fail;
	}
	if (IN_MULTICAST(ntohl(sin.sin_addr.s_addr))) {
		struct ip_mreqn mreq = { .imr_multiaddr = sin.sin_addr };

		if (ifaddr && inet_pton(AF_INET, ifaddr, &mreq.imr_address) != 1) {
			fprintf(stderr, "%s: bad interface address '%s'\n", prog, ifaddr);
			goto fail;
		}
		if (setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof(mreq))) {
			fprintf(stderr, "%s: IP_ADD_MEMBERSHIP: %s\n", prog, strerror(errno));
			goto fail;
		}
	}
	return fd;
fail:
	close(fd);
	return -1;
}

void tool_write_trade(FILE *o, uint64_t seq, const char symbol[ITCH_SYMBOL_LEN],
		      const uint8_t *m, uint64_t now_ns)
{
	int n = ITCH_SYMBOL_LEN;

	while (n > 0 && (symbol[n - 1] == ' ' || symbol[n - 1] == '\0'))
		n--;
	fprintf(o, "%" PRIu64 ",%.*s,%u,%" PRIu32 ",%" PRIu32 ",%" PRIu64 "\n",
		seq, n, symbol, be16_load(m + ITCH_OFF_LOCATE),
		be32_load(m + ITCH_P_OFF_PRICE), be32_load(m + ITCH_P_OFF_SHARES),
		itch_ts_recover(be48_load(m + ITCH_OFF_TIMESTAMP), now_ns));
}
