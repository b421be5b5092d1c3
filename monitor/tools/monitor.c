// SPDX-License-Identifier: MIT
/*
 * t2t-monitor: a running gateway's monitor segment over HTTP, from its own
 * process (it only maps the segment read-only):
 *
 *	/metrics	Prometheus text exposition format (monitor/prom.c)
 *	/api/state	JSON (monitor/json.c); ?since=N: order events from N
 *	/		the dashboard (monitor/web/: HTML, CSS, JS, no CDN)
 *
 * libmicrohttpd with its one internal thread: requests are answered one
 * at a time, so the reader state needs no lock.  The dashboard's files are
 * built into the program (web_assets.S); --web DIR serves them from disk
 * instead, for working on the page.  When the writer goes away the last
 * values are served (t2t_up 0); when the name is published again, the
 * next request reads the new segment.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <pthread.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monitor/export.h"
#include "monitor/reader.h"
#include "monitor/snap.h"
#include "util/clock.h"
#include "util/opt.h"

struct cfg {
	uint32_t ip;
	uint16_t port;
	const char *name;
	double window_s;
	const char *web;
};

static const struct opt opts[] = {
	OPT("listen", 'l', OPT_IP_PORT, OFF(struct cfg, ip), "ADDR:PORT",
	    "where to listen (127.0.0.1: this host only)", .off2 = OFF(struct cfg, port),
	    .def = "127.0.0.1:9470"),
	OPT("name", 'n', OPT_STR, OFF(struct cfg, name), "NAME",
	    "segment /dev/shm/t2t-NAME (default: the only one there is)",
	    .max = MON_NAME_MAX - 1),
	OPT("window", 'w', OPT_DOUBLE, OFF(struct cfg, window_s), "S",
	    "the recent latency window, seconds", .min = 1, .max = MON_WIN_SLOTS - 1),
	OPT("web", 0, OPT_STR, OFF(struct cfg, web), "DIR",
	    "serve the dashboard's files from DIR (default: those built in)"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "t2t-monitor",
	.usage = "[options]",
	.about = "Serves a t2t gateway's monitor segment (/dev/shm/t2t-NAME): /metrics\n"
		 "(Prometheus), /api/state (JSON) and a dashboard at /.",
	.opts = opts,
};

/* The dashboard's files, built in by web_assets.S. */
#define ASSET(sym) extern const char sym[], sym##_end[];
ASSET(web_index_html) ASSET(web_app_js) ASSET(web_chart_js) ASSET(web_style_css)

static const struct asset {
	const char *path, *file, *type;
	const char *start, *end;
} assets[] = {
	{ "/", "index.html", "text/html; charset=utf-8", web_index_html, web_index_html_end },
	{ "/index.html", "index.html", "text/html; charset=utf-8", web_index_html,
	  web_index_html_end },
	{ "/app.js", "app.js", "text/javascript; charset=utf-8", web_app_js, web_app_js_end },
	{ "/chart.js", "chart.js", "text/javascript; charset=utf-8", web_chart_js,
	  web_chart_js_end },
	{ "/style.css", "style.css", "text/css; charset=utf-8", web_style_css,
	  web_style_css_end },
};

struct server {
	const struct cfg *cfg;
	struct mon_reader r;
	bool attached;
	struct mon_snap *snap;
	char why[512];		/* why there is no segment */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int attach(struct server *s)
{
	char name[MON_NAME_MAX];
	struct mon_reader nr;
	int ret;

	if (s->cfg->name) {
		snprintf(name, sizeof(name), "%s", s->cfg->name);
	} else {
		ret = mon_find_one(name, sizeof(name), s->why, sizeof(s->why));
		if (ret != 1)
			return -ENOENT;
	}
	ret = mon_open(&nr, name, s->why, sizeof(s->why));
	if (ret)
		return ret;
	if (s->attached)
		mon_close(&s->r);
	s->r = nr;
	s->attached = true;
	return 0;
}

/* The segment as of now: the one attached, or a newer one under the name. */
static bool current(struct server *s, uint64_t since)
{
	if (!s->attached || mon_replaced(&s->r))
		attach(s);	/* on failure, keep serving the old one's last values */
	if (!s->attached)
		return false;
	mon_snapshot(&s->r, s->snap, (uint64_t)(s->cfg->window_s * 1e9), since);
	return true;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type,
			     char *body, size_t len, bool must_free)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body,
			must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned int status, const char *type,
			    struct sbuf *b)
{
	if (b->failed) {
		sbuf_free(b);
		return reply(c, 500, "text/plain", "out of memory\n", 14, false);
	}
	return reply(c, status, type, b->p, b->len, true);
}

static enum MHD_Result file(struct server *s, struct MHD_Connection *c, const struct asset *a)
{
	char path[1024], *body;
	struct stat st;
	ssize_t n;
	int fd;

	if (!s->cfg->web)
		return reply(c, 200, a->type, (char *)a->start, (size_t)(a->end - a->start), false);
	snprintf(path, sizeof(path), "%s/%s", s->cfg->web, a->file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !(body = malloc((size_t)st.st_size + 1))) {
		if (fd >= 0)
			close(fd);
		return reply(c, 404, "text/plain", "not found\n", 10, false);
	}
	n = read(fd, body, (size_t)st.st_size);
	close(fd);
	return reply(c, 200, a->type, body, n > 0 ? (size_t)n : 0, true);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_len, void **req)
{
	struct server *s = cls;
	struct sbuf b = { 0 };

	(void)version;
	(void)upload;
	(void)upload_len;
	(void)req;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(c, 405, "text/plain", "GET only\n", 9, false);
	if (!strcmp(url, "/metrics")) {
		mon_prom(&b, current(s, 0) ? s->snap : NULL);
		return text(c, 200, "text/plain; version=0.0.4; charset=utf-8", &b);
	}
	if (!strcmp(url, "/api/state")) {
		const char *since = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "since");
		uint64_t from = 0;

		if (since && opt_parse_u64(since, 0, UINT64_MAX, &from))
			return reply(c, 400, "text/plain", "since: a number\n", 16, false);
		mon_json(&b, current(s, from) ? s->snap : NULL, s->why);
		return text(c, 200, "application/json", &b);
	}
	for (size_t i = 0; i < sizeof(assets) / sizeof(assets[0]); i++)
		if (!strcmp(url, assets[i].path))
			return file(s, c, &assets[i]);
	return reply(c, 404, "text/plain", "not found\n", 10, false);
}

int main(int argc, char **argv)
{
	struct cfg cfg = { .ip = 0x7f000001, .port = 9470, .window_s = 5 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct server srv = { .cfg = &cfg };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct MHD_Daemon *d;
	char ip[INET_ADDRSTRLEN];
	sigset_t block, old;
	int ret;

	ret = opt_parse(&prog, &cfg, argc, argv, NULL);
	if (ret)
		return ret == 1 ? 0 : 2;
	if (cfg.name && !mon_name_ok(cfg.name))
		return opt_error(&prog, "--name: 1 to %d of A-Z a-z 0-9 _ . -", MON_NAME_MAX - 1);
	srv.snap = calloc(1, sizeof(*srv.snap));
	if (!srv.snap)
		return 1;
	snprintf(srv.why, sizeof(srv.why), "not read yet");
	sin.sin_addr.s_addr = htonl(cfg.ip);
	sin.sin_port = htons(cfg.port);
	inet_ntop(AF_INET, &sin.sin_addr, ip, sizeof(ip));

	/* Signals to this thread only: the server's thread must not take them. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, cfg.port, NULL,
			     NULL, handle, &srv, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sin,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "t2t-monitor: cannot listen on %s:%u: %s\n", ip, cfg.port,
			strerror(errno));
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fprintf(stderr, "t2t-monitor: http://%s:%u/ (/metrics, /api/state)\n", ip, cfg.port);
	while (!stop)
		sigsuspend(&old);
	MHD_stop_daemon(d);
	if (srv.attached)
		mon_close(&srv.r);
	free(srv.snap);
	return 0;
}
