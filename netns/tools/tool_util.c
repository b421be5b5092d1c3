// SPDX-License-Identifier: MIT
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netns/tools/tool_util.h"
#include "proto/be.h"

int tool_rx_expect_trades(void *cfg, const char *arg, char *why, size_t whylen)
{
	struct tool_rx *rx = cfg;	/* the config's first member */

	if (opt_parse_u64(arg, 0, UINT64_MAX, &rx->expect_trades))
		return snprintf(why, whylen, "wants a count"), -1;
	rx->have_expect = true;
	return 0;
}

int tool_rx_parse(const struct opt_prog *p, void *cfg, int argc, char **argv)
{
	struct tool_rx *rx = cfg;
	uint64_t port;
	int first, ret;

	ret = opt_parse(p, cfg, argc, argv, &first);
	if (ret)
		return ret;
	if (argc - first < 2 || argc - first > 3)
		return opt_error(p, "the arguments are ADDR PORT [IFADDR]");
	if (opt_parse_u64(argv[first + 1], 1, 65535, &port))
		return opt_error(p, "PORT wants 1..65535: '%s'", argv[first + 1]);
	rx->addr = argv[first];
	rx->port = (uint16_t)port;
	rx->ifaddr = argc - first == 3 ? argv[first + 2] : NULL;
	return 0;
}

bool tool_rx_session(const struct tool_rx *rx, char session[MOLD_SESSION_LEN])
{
	if (!rx->session)
		return false;
	mold_session_set(session, rx->session);
	return true;
}


static int parse_hex(const char *s, uint8_t *out, size_t cap, size_t *len)
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

int tool_opt_hex(const struct opt_prog *p, const char *flag, const char *s, uint8_t *out,
		 size_t cap, size_t *len)
{
	if (parse_hex(s, out, cap, len))
		return opt_error(p, "%s wants an even number of hex digits, at most %zu bytes: "
				 "'%s'", flag, cap, s);
	return 0;
}

int tool_opt_target(const struct opt_prog *p, int argc, char **argv, int first, int more,
		    const char *names, struct sockaddr_in *sa)
{
	uint64_t v;

	if (argc - first != 2 + more)
		return opt_error(p, "the arguments are %s", names);
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	if (inet_pton(AF_INET, argv[first], &sa->sin_addr) != 1)
		return opt_error(p, "ADDR wants an IPv4 address: '%s'", argv[first]);
	if (opt_parse_u64(argv[first + 1], 1, 65535, &v))
		return opt_error(p, "PORT wants 1..65535: '%s'", argv[first + 1]);
	sa->sin_port = htons((uint16_t)v);
	return 0;
}

int tool_udp_socket(const char *prog, int sock_flags, int rcvbuf)
{
	int fd = socket(AF_INET, SOCK_DGRAM | sock_flags, 0);

	if (fd < 0) {
		fprintf(stderr, "%s: socket: %s\n", prog, strerror(errno));
		return -1;
	}
	if (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	return fd;
}

static int open_feed(const char *prog, const char *addr, uint16_t port,
		     const char *ifaddr, int sock_flags, int rcvbuf)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, fd;

	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1) {
		fprintf(stderr, "%s: '%s' is not an IPv4 address\n", prog, addr);
		return -1;
	}
	/* The buffer: a high rate must not overflow the socket between two reads. */
	fd = tool_udp_socket(prog, sock_flags, rcvbuf);
	if (fd < 0)
		return -1;
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

int tool_rx_open(const char *prog, const struct tool_rx *rx, int sock_flags, int rcvbuf)
{
	int fd = open_feed(prog, rx->addr, rx->port, rx->ifaddr, sock_flags, rcvbuf);

	if (fd < 0)
		return -1;
	/* The test starts the simulator only once it reads this: no race with the join. */
	printf("joined\n");
	fflush(stdout);
	return fd;
}
int tool_trades_open(struct tool_trades *t, const char *prog, const char *path)
{
	t->f = fopen(path, "w");
	if (!t->f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return -1;
	}
	t->path = path;
	fputs("seq,symbol,locate,price,shares,send_ns\n", t->f);
	fflush(t->f);	/* a test polling the file sees it begun */
	return 0;
}

void tool_trades_msg(struct tool_trades *t, uint64_t seq, const uint8_t *m, uint64_t now_ns)
{
	uint16_t loc = be16_load(m + ITCH_OFF_LOCATE);
	const char *sym = t->symbol[loc];
	int n = ITCH_SYMBOL_LEN;

	if (m[ITCH_OFF_TYPE] == 'R')
		memcpy(t->symbol[loc], m + ITCH_R_OFF_STOCK, ITCH_SYMBOL_LEN);
	if (m[ITCH_OFF_TYPE] != 'P' || !t->f)
		return;
	while (n > 0 && (sym[n - 1] == ' ' || sym[n - 1] == '\0'))
		n--;
	fprintf(t->f, "%" PRIu64 ",%.*s,%u,%" PRIu32 ",%" PRIu32 ",%" PRIu64 "\n",
		seq, n, sym, loc,
		be32_load(m + ITCH_P_OFF_PRICE), be32_load(m + ITCH_P_OFF_SHARES),
		itch_ts_recover(be48_load(m + ITCH_OFF_TIMESTAMP), now_ns));
	if (t->flush)
		fflush(t->f);
}

int tool_trades_close(struct tool_trades *t, const char *prog)
{
	int rc = 0;

	if (t->f && fclose(t->f)) {
		fprintf(stderr, "%s: %s: %s\n", prog, t->path, strerror(errno));
		rc = -1;
	}
	t->f = NULL;
	return rc;
}

void tool_write_hex(FILE *o, uint64_t seq, const uint8_t *m, size_t len)
{
	fprintf(o, "%" PRIu64 ",", seq);
	for (size_t i = 0; i < len; i++)
		fprintf(o, "%02x", m[i]);
	fputc('\n', o);
}
