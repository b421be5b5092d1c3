// SPDX-License-Identifier: MIT
/*
 * t2t-top: a running gateway's monitor segment on a terminal, redrawn in
 * place (plain ANSI escapes, so it works over ssh): feed, gaps, orders,
 * risk refusals and XDP counters with rates, a table per symbol, latency
 * percentiles per stage since start and over the last seconds.  When the
 * writer goes away the last values stay on screen, marked; when a writer
 * publishes the name again, t2t-top attaches to it.  --once prints one
 * frame without escapes and exits (scripts, tests).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "monitor/export.h"
#include "monitor/reader.h"
#include "monitor/snap.h"
#include "util/clock.h"
#include "util/opt.h"

struct cfg {
	const char *name;
	uint64_t interval_ns;
	double window_s;
	double wait_s;
	bool once;
};

static const struct opt opts[] = {
	OPT("name", 'n', OPT_STR, OFF(struct cfg, name), "NAME",
	    "segment /dev/shm/t2t-NAME (default: the only one there is)",
	    .max = MON_NAME_MAX - 1),
	OPT("interval", 'i', OPT_MS, OFF(struct cfg, interval_ns), "MS", "redraw every MS",
	    .min = 50, .max = 60000),
	OPT("window", 'w', OPT_DOUBLE, OFF(struct cfg, window_s), "S",
	    "recent latency over the last S seconds", .min = 1, .max = MON_WIN_SLOTS - 1),
	OPT("once", '1', OPT_FLAG, OFF(struct cfg, once), NULL,
	    "print one frame, no escapes, and exit"),
	OPT("wait", 0, OPT_DOUBLE, OFF(struct cfg, wait_s), "S",
	    "--once: wait up to S seconds for the segment to appear", .max = 3600),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "t2t-top",
	.usage = "[options]",
	.about = "Shows a t2t gateway's monitor segment (/dev/shm/t2t-NAME) as it runs.",
	.more = "Exit status: 0 ok; 1 no segment (--once) or a segment of an unknown layout; 2 usage.",
	.opts = opts,
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* A frame: lines built in memory, written at once (no flicker). */
struct frame {
	char buf[64 * 1024];
	size_t len;
	int col;		/* column of the line being built */
	int width;
	bool tty;
};

static void out(struct frame *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(struct frame *f, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (f->len >= sizeof(f->buf) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(f->buf + f->len, sizeof(f->buf) - f->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(f->buf) - f->len)
		n = (int)(sizeof(f->buf) - f->len - 1);
	f->len += (size_t)n;
	f->col += n;
}

static void eol(struct frame *f)
{
	if (f->tty)
		out(f, "\033[K");	/* clear what the last frame left on this line */
	out(f, "\n");
	f->col = 0;
}

/* "name value" items of a group's line, wrapped under the group's name. */
static void item(struct frame *f, const char *name, const char *val)
{
	int w = (int)(strlen(name) + strlen(val) + 2);

	if (f->col > 9 && f->col + w > f->width) {
		eol(f);
		out(f, "%9s", "");
	}
	out(f, " %s %s", name, val);
}

static const char *bold(const struct frame *f, bool on)
{
	return f->tty ? (on ? "\033[1;31m" : "\033[0m") : "";
}

struct rates {
	uint64_t t_ns;
	uint64_t v[MON_MAX_COUNTERS];
	bool have;
	uint64_t start_real_ns;
};

/* Counters that matter per group, shown even at 0; any other shows when non-zero. */
static const char *const keys[] = {
	"feed.ticks", "feed.packets", "feed.messages", "feed.malformed", "feed.lost_msgs",
	"feed.next_seq", "gaps.opened", "gaps.filled", "gaps.requests", "gaps.held",
	"gaps.timeouts", "orders.sent", "orders.filled", "orders.canceled", "orders.rejected",
	"orders.open", "orders.timed_out", "orders.untraded", "xdp.steered", "xdp.passed",
	"xdp.rx_dropped", "xdp.rx_ring_full", "xdp.rx_fill_ring_empty", "xdp.kicks",
	"order_session.connected", "order_session.logins", "order_session.rejects",
	"order_session.replayed", "tcp.retransmissions", "tcp.rto_expiries",
	"tcp.window_stalls", "tcp.resets_in", NULL,
};

static bool is_key(const char *name)
{
	for (int i = 0; keys[i]; i++)
		if (!strcmp(keys[i], name))
			return true;
	return false;
}

/* Per second, for the counters people watch the speed of. */
static bool rated(const char *name)
{
	return !strcmp(name, "feed.ticks") || !strcmp(name, "feed.packets") ||
	       !strcmp(name, "orders.sent") || !strcmp(name, "orders.filled");
}

static void counters(struct frame *f, const struct mon_snap *s, const struct rates *prev)
{
	char group[MON_COUNTER_NAME] = "";
	bool shown = false;
	double dt = prev->have ? (double)(s->counters_t_ns - prev->t_ns) / 1e9 : 0;

	for (unsigned int i = 0; i < s->hdr.n_counters; i++) {
		const struct mon_counter_name *c = &s->names[i];
		const char *dot = strchr(c->name, '.');
		size_t glen = dot ? (size_t)(dot - c->name) : 0;
		uint64_t v = s->counters[i];
		bool alarm = false, unit_ms = false;
		char val[64], label[MON_COUNTER_NAME];

		if (strlen(group) != glen || strncmp(group, c->name, glen)) {
			if (group[0])
				eol(f);
			snprintf(group, sizeof(group), "%.*s", (int)glen, c->name);
			out(f, "%-8s", group);
			shown = false;
		}
		if (!v && !is_key(c->name)) {
			/* A group of zeros says so, once, at its end. */
			if (!shown && (i + 1 == s->hdr.n_counters ||
				       strncmp(s->names[i + 1].name, c->name, glen + 1))) {
				out(f, " all 0");
			}
			continue;
		}
		shown = true;
		if (c->kind == MON_FLAG) {
			snprintf(val, sizeof(val), "%s", v ? "YES" : "no");
			alarm = v && strcmp(c->name, "feed.end_of_session");
		} else if (c->unit == MON_UNIT_NS) {
			/* Shown in ms: the label drops its "_ns" so the two agree. */
			snprintf(val, sizeof(val), "%.3fms", (double)v / 1e6);
			unit_ms = true;
		} else if (rated(c->name) && dt > 0 && v >= prev->v[i]) {
			snprintf(val, sizeof(val), "%" PRIu64 " (%.0f/s)", v, (double)(v - prev->v[i]) / dt);
		} else {
			snprintf(val, sizeof(val), "%" PRIu64, v);
		}
		snprintf(label, sizeof(label), "%s", dot ? dot + 1 : c->name);
		if (unit_ms && strlen(label) > 3 && !strcmp(label + strlen(label) - 3, "_ns"))
			label[strlen(label) - 3] = '\0';
		if (alarm) {
			char tmp[96];

			snprintf(tmp, sizeof(tmp), "%s%s%s", bold(f, true), val, bold(f, false));
			f->col -= (int)(strlen(tmp) - strlen(val));	/* escapes take no room */
			item(f, label, tmp);
		} else {
			item(f, label, val);
		}
	}
	if (group[0])
		eol(f);
}

static void price(char *buf, size_t len, int64_t p4)
{
	if (!p4)
		snprintf(buf, len, "-");
	else
		mon_price_str(p4, buf, len);
}

static void symbols(struct frame *f, const struct mon_snap *s)
{
	int64_t pnl = 0;
	char cash[32], pl[32], last[32], bid[32], ask[32];

	out(f, "%-8s %9s %9s %4s %11s %11s %11s %6s %13s %15s %7s %7s", "symbol", "position",
	    "target", "str", "bid", "ask", "last", "size", "pnl", "cash", "orders", "fills");
	eol(f);
	for (unsigned int k = 0; k < s->hdr.n_symbols; k++) {
		const struct mon_sym *m = &s->sym[k];

		price(bid, sizeof(bid), m->bid);
		price(ask, sizeof(ask), m->ask);
		price(last, sizeof(last), m->last_price);
		mon_price_str(m->cash, cash, sizeof(cash));
		mon_price_str(m->pnl, pl, sizeof(pl));
		out(f, "%-8s %+9" PRId64 " %+9" PRId64 " %+4d %11s %11s %11s %6u %13s %15s %7"
		    PRIu64 " %7" PRIu64, s->hdr.symbols[k], m->position, m->target, m->strat_pos,
		    bid, ask, last, m->last_size, pl, cash, m->orders, m->fills);
		eol(f);
		pnl += m->pnl;
	}
	mon_price_str(pnl, pl, sizeof(pl));
	out(f, "%-8s %79s", "total", pl);
	eol(f);
}

static void us(char *buf, size_t len, const struct hdr_hist *h, double p)
{
	if (!hdr_count(h))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", (double)hdr_value_at_percentile(h, p) / 1e3);
}

static void latency(struct frame *f, const struct mon_snap *s)
{
	char last[32];

	snprintf(last, sizeof(last), "last %.1f s", (double)s->recent_ns / 1e9);
	out(f, "%-16s %-40s | %s", "latency (us)", "since start", last);
	eol(f);
	out(f, "%-16s %10s %9s %9s %9s | %8s %9s %9s %9s", "stage", "count", "p50", "p99",
	    "p99.9", "count", "p50", "p99", "p99.9");
	eol(f);
	for (unsigned int i = 0; i < MON_STAGES; i++) {
		char a[MON_NPCT][24], r[MON_NPCT][24];

		for (int p = 0; p < MON_NPCT; p++) {
			us(a[p], sizeof(a[p]), &s->all[i], mon_pcts[p]);
			us(r[p], sizeof(r[p]), &s->recent[i], mon_pcts[p]);
		}
		out(f, "%-16s %10" PRIu64 " %9s %9s %9s | %8" PRIu64 " %9s %9s %9s",
		    s->hdr.stages[i], hdr_count(&s->all[i]), a[0], a[1], a[2],
		    hdr_count(&s->recent[i]), r[0], r[1], r[2]);
		eol(f);
	}
}

static void header(struct frame *f, const struct mon_snap *s, const char *path)
{
	uint64_t up = s->now_ns - s->hdr.start_mono_ns;
	double hb = s->now_ns > s->heartbeat_ns ? (double)(s->now_ns - s->heartbeat_ns) / 1e9 : 0;
	time_t now = time(NULL);
	struct tm tm;
	char clock[16] = "";

	if (localtime_r(&now, &tm))
		strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	out(f, "t2t-top  %s  %s pid %d  up %02" PRIu64 ":%02" PRIu64 ":%02" PRIu64 "  ", path,
	    s->hdr.writer, s->hdr.pid, up / 3600000000000u, up / 60000000000u % 60,
	    up / 1000000000u % 60);
	if (!s->alive)
		out(f, "%sWRITER GONE: last values%s", bold(f, true), bold(f, false));
	else if (hb > 3)
		out(f, "%sNO HEARTBEAT for %.0f s%s", bold(f, true), hb, bold(f, false));
	else
		out(f, "running");
	out(f, "  %s", clock);
	eol(f);
	eol(f);
}

static void draw(struct frame *f, const struct mon_snap *s, const char *path,
		 const struct rates *prev)
{
	header(f, s, path);
	counters(f, s, prev);
	eol(f);
	symbols(f, s);
	eol(f);
	latency(f, s);
}

static void show(struct frame *f)
{
	if (f->tty)
		fputs("\033[H", stdout);
	fwrite(f->buf, 1, f->len, stdout);
	if (f->tty)
		fputs("\033[J", stdout);
	fflush(stdout);
	f->len = 0;
	f->col = 0;
}

static void message(struct frame *f, const char *fmt, const char *arg)
{
	out(f, "t2t-top  ");
	out(f, fmt, arg);
	eol(f);
	show(f);
}

static int width(void)
{
	struct winsize ws;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col >= 40)
		return ws.ws_col;
	return 110;
}

static void nap(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / NS_PER_SEC), (long)(ns % NS_PER_SEC) };

	nanosleep(&ts, NULL);
}

/* Open the named segment, or the only one there is.  0, -ENOENT, -EPROTO... */
static int attach(const struct cfg *c, struct mon_reader *r, char *err, size_t errlen)
{
	char name[MON_NAME_MAX], why[384];
	int ret;

	if (c->name) {
		ret = mon_open(r, c->name, err, errlen);
		/* Not there: say which are (a typo, or the gateway not started). */
		if (ret == -ENOENT && mon_find_one(name, sizeof(name), why, sizeof(why)) != 0) {
			size_t len = strlen(err);

			snprintf(err + len, errlen - len, "; running: %s",
				 strstr(why, "(") ? why : name);
		} else if (ret == -ENOENT) {
			snprintf(err + strlen(err), errlen - strlen(err), "; no gateway is running");
		}
		return ret;
	}
	switch (mon_find_one(name, sizeof(name), err, errlen)) {
	case 1:
		return mon_open(r, name, err, errlen);
	case 0:
		return -ENOENT;
	default:
		return -E2BIG;
	}
}

/* --once: wait up to --wait for the segment, print one frame.  The exit status. */
static int run_once(const struct cfg *c, struct frame *f, struct mon_snap *s,
		    const struct rates *prev)
{
	struct mon_reader r = { .fd = -1 };
	uint64_t deadline = mono_ns() + (uint64_t)(c->wait_s * 1e9);
	char err[512];
	int ret;

	while ((ret = attach(c, &r, err, sizeof(err))) == -ENOENT && mono_ns() < deadline)
		nap(100 * NS_PER_MS);
	if (ret) {
		fprintf(stderr, "t2t-top: %s\n", err);
		return 1;
	}
	f->width = 110;
	if (mon_snapshot(&r, s, (uint64_t)(c->window_s * 1e9), 0))
		fprintf(stderr, "t2t-top: note: a block kept moving; some values are older\n");
	draw(f, s, r.path, prev);
	show(f);
	mon_close(&r);
	return 0;
}

/*
 * Attached to the writer's segment, or why not in @err.  A segment a new
 * writer has replaced is swapped for the new one once that opens; until
 * then the old values stay on screen.
 */
static bool follow_writer(const struct cfg *c, struct mon_reader *r, bool *attached,
			  struct rates *prev, char *err, size_t errlen)
{
	struct mon_reader nr;

	if (*attached && mon_replaced(r) && !attach(c, &nr, err, errlen)) {
		mon_close(r);
		*r = nr;
		prev->have = false;
	}
	if (*attached)
		return true;
	if (attach(c, r, err, errlen))
		return false;
	*attached = true;
	prev->have = false;
	return true;
}

/* This frame's counters: the next frame's rates are taken against them. */
static void remember(struct rates *prev, const struct mon_snap *s)
{
	prev->t_ns = s->counters_t_ns;
	memcpy(prev->v, s->counters, sizeof(prev->v));
	prev->start_real_ns = s->hdr.start_real_ns;
	prev->have = true;
}

/* Redraw every --interval until a signal, following the writer. */
static void run_live(const struct cfg *c, struct frame *f, struct mon_snap *s,
		     struct rates *prev)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct mon_reader r = { .fd = -1 };
	bool attached = false;
	char err[512];

	f->tty = isatty(STDOUT_FILENO);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (f->tty)
		fputs("\033[?1049h\033[?25l", stdout);	/* own screen, no cursor */
	while (!stop) {
		f->width = width();
		if (!follow_writer(c, &r, &attached, prev, err, sizeof(err))) {
			message(f, "waiting: %s", err);
			nap(c->interval_ns);
			continue;
		}
		mon_snapshot(&r, s, (uint64_t)(c->window_s * 1e9), 0);
		if (prev->start_real_ns != s->hdr.start_real_ns)
			prev->have = false;	/* another run: no rates across it */
		draw(f, s, r.path, prev);
		show(f);
		remember(prev, s);
		nap(c->interval_ns);
	}
	if (f->tty)
		fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	if (attached)
		mon_close(&r);
}

int main(int argc, char **argv)
{
	struct cfg cfg = { .interval_ns = 500 * NS_PER_MS, .window_s = 5 };
	static struct frame f;
	static struct rates prev;
	struct mon_snap *s;
	int ret;

	ret = opt_parse(&prog, &cfg, argc, argv, NULL);
	if (ret)
		return ret == 1 ? 0 : 2;
	if (cfg.name && !mon_name_ok(cfg.name))
		return opt_error(&prog, "--name: 1 to %d of A-Z a-z 0-9 _ . -", MON_NAME_MAX - 1);
	s = calloc(1, sizeof(*s));
	if (!s)
		return 1;
	if (cfg.once)
		ret = run_once(&cfg, &f, s, &prev);
	else
		run_live(&cfg, &f, s, &prev);
	free(s);
	return ret;
}
