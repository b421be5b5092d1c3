// SPDX-License-Identifier: MIT
/* Capture log: gzip text writer, strict reader, per-stage histograms. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latency/capture.h"

#define CAPTURE_MAGIC	"# t2t-capture v"
#define CAPTURE_TRAILER	"# end records="
/* Version 1 had no exch_ts column: still read, exch_ts 0. */
#define CAPTURE_COLUMNS_V1 "order_no,md_seq,symbol,side,shares,price,outcome,flags," \
			"t_send,t_hook,t_seen,t_decided,t_queued,t_sent,t_ack"
#define CAPTURE_COLUMNS	CAPTURE_COLUMNS_V1 ",exch_ts"
#define CAPTURE_FIELDS	16

/* ---- header ---- */

bool capture_key_ok(const char *k, size_t len)
{
	if (!len || len >= CAPTURE_KEY_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') ||
		      k[i] == '_' || k[i] == '.' || k[i] == '-'))
			return false;
	return true;
}

int capture_note_add(const char **notes, unsigned int *n, unsigned int max,
		     const char *arg, char *why, size_t whylen)
{
	const char *eq = strchr(arg, '=');

	if (!eq || !capture_key_ok(arg, (size_t)(eq - arg)))
		return snprintf(why, whylen, "wants KEY=VALUE, KEY of [a-z0-9_.-]"), -1;
	if (*n == max)
		return snprintf(why, whylen, "given more than %u times", max), -1;
	notes[(*n)++] = arg;
	return 0;
}

void capture_meta_init(struct capture_meta *m, const char *path)
{
	memset(m, 0, sizeof(*m));
	capture_meta_set(m, "path", "%s", path);
}

int capture_meta_set(struct capture_meta *m, const char *key, const char *fmt, ...)
{
	unsigned int i;
	va_list ap;
	char *v;

	if (!capture_key_ok(key, strlen(key)))
		return -EINVAL;
	for (i = 0; i < m->n; i++)
		if (!strcmp(m->kv[i].key, key))
			break;
	if (i == m->n) {
		if (m->n == CAPTURE_META_MAX)
			return -ENOSPC;
		m->n++;
		strcpy(m->kv[i].key, key);
	}
	va_start(ap, fmt);
	vsnprintf(m->kv[i].val, CAPTURE_VAL_LEN, fmt, ap);
	va_end(ap);
	/* One line per key: nothing may end it early. */
	for (v = m->kv[i].val; *v; v++)
		if ((unsigned char)*v < 0x20 || *v == 0x7f)
			*v = '?';
	return 0;
}

const char *capture_meta_get(const struct capture_meta *m, const char *key)
{
	for (unsigned int i = 0; i < m->n; i++)
		if (!strcmp(m->kv[i].key, key))
			return m->kv[i].val;
	return NULL;
}

/* ---- writer ---- */

static void put(struct capture_writer *w, const char *s, size_t len)
{
	if (w->err || !len)
		return;
	if (gzwrite(w->gz, s, (unsigned int)len) != (int)len) {
		int zerr;

		gzerror(w->gz, &zerr);
		w->err = zerr == Z_ERRNO && errno ? -errno : -EIO;
	}
}

int capture_open(struct capture_writer *w, const char *path,
		 const struct capture_meta *m)
{
	char line[CAPTURE_KEY_LEN + CAPTURE_VAL_LEN + 8];
	int n;

	memset(w, 0, sizeof(*w));
	errno = 0;
	w->gz = gzopen(path, "wb");
	if (!w->gz)
		return errno ? -errno : -ENOMEM;
	gzbuffer(w->gz, 1 << 17);
	n = snprintf(line, sizeof(line), CAPTURE_MAGIC "%d\n", CAPTURE_VERSION);
	put(w, line, (size_t)n);
	for (unsigned int i = 0; i < m->n; i++) {
		n = snprintf(line, sizeof(line), "# %s=%s\n", m->kv[i].key, m->kv[i].val);
		put(w, line, (size_t)n);
	}
	put(w, CAPTURE_COLUMNS "\n", sizeof(CAPTURE_COLUMNS));
	return 0;
}

/* Printable, no comma: what a field of the comma-separated line may hold. */
static char field_char(char c)
{
	return c > 0x20 && c < 0x7f && c != ',' ? c : '?';
}

void capture_flags_text(uint8_t flags, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < ORDER_F_NR && at < len; i++)
		if (flags & (1u << i))
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "+" : "",
					       order_flag_names[i]);
	if (!at)
		snprintf(buf, len, "-");
}

void capture_write(struct capture_writer *w, const struct capture_rec *r)
{
	char sym[sizeof(r->symbol)], line[CAPTURE_LINE_MAX], flags[64];
	size_t i;
	int n;

	for (i = 0; i < sizeof(sym) - 1 && r->symbol[i]; i++)
		sym[i] = field_char(r->symbol[i]);
	if (!i)
		sym[i++] = '?';
	sym[i] = '\0';
	capture_flags_text(r->flags, flags, sizeof(flags));
	n = snprintf(line, sizeof(line),
		     "%" PRIu64 ",%" PRIu64 ",%s,%c,%u,%u,%s,%s,%" PRIu64 ",%" PRIu64 ",%"
		     PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
		     r->order_no, r->md_seq, sym, field_char(r->side), r->shares, r->price,
		     r->outcome < ORDER_OUTCOME_NR ? order_outcome_names[r->outcome] : "sent",
		     flags, r->t.t_send, r->t.t_hook, r->t.t_seen, r->t.t_decided, r->t.t_queued,
		     r->t.t_sent, r->t.t_ack, r->exch_ts);
	put(w, line, (size_t)n);
	if (!w->err)
		w->records++;
}

int capture_close(struct capture_writer *w)
{
	char line[64];
	int n, ret;

	if (!w->gz)
		return w->err;
	n = snprintf(line, sizeof(line), CAPTURE_TRAILER "%" PRIu64 "\n", w->records);
	put(w, line, (size_t)n);
	errno = 0;
	ret = gzclose(w->gz);
	w->gz = NULL;
	if (!w->err && ret != Z_OK)
		w->err = ret == Z_ERRNO && errno ? -errno : -EIO;
	return w->err;
}

/* ---- reader ---- */

__attribute__((format(printf, 2, 3)))
static int fail(struct capture_reader *r, const char *fmt, ...)
{
	char what[CAPTURE_LINE_MAX / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (r->line)
		snprintf(r->err, sizeof(r->err), "%s:%lu: %s", r->name, r->line, what);
	else
		snprintf(r->err, sizeof(r->err), "%s: %s", r->name, what);
	return -1;
}

/*
 * Next line without its newline: 1, 0 at a clean end of file, -1 with the
 * error set.  gzip damage (a cut stream, bad data, a bad CRC) is reported
 * by zlib when the read reaches it.
 */
/* zlib's message, without the file name it puts in front. */
static const char *gz_msg(const struct capture_reader *r, const char *msg)
{
	size_t n = strlen(r->name);

	if (!strncmp(msg, r->name, n) && msg[n] == ':' && msg[n + 1] == ' ')
		return msg + n + 2;
	return msg;
}

static int next_line(struct capture_reader *r)
{
	size_t len;
	int zerr;
	const char *msg;

	r->line++;
	if (!gzgets(r->gz, r->buf, sizeof(r->buf))) {
		msg = gzerror(r->gz, &zerr);
		if (zerr != Z_OK && zerr != Z_STREAM_END)
			return fail(r, "gzip: %s (file cut short or damaged)",
				    zerr == Z_ERRNO ? strerror(errno) : gz_msg(r, msg));
		return 0;
	}
	len = strlen(r->buf);
	if (len && r->buf[len - 1] == '\n') {
		r->buf[len - 1] = '\0';
		return 1;
	}
	msg = gzerror(r->gz, &zerr);
	if (zerr != Z_OK && zerr != Z_STREAM_END)
		return fail(r, "gzip: %s (file cut short or damaged)",
			    zerr == Z_ERRNO ? strerror(errno) : gz_msg(r, msg));
	if (len == sizeof(r->buf) - 1)
		return fail(r, "line longer than %d bytes", CAPTURE_LINE_MAX - 2);
	/* gzgets() stops early only at the end of the data; else a NUL hid
	 * the rest of the line from strlen(). */
	if (!gzeof(r->gz))
		return fail(r, "NUL byte in the line");
	return fail(r, "last line has no newline (file cut short?)");
}

static int read_header(struct capture_reader *r)
{
	const char *v;
	char *end;
	long ver;
	int ret;

	ret = next_line(r);
	if (ret <= 0)
		return ret < 0 ? -1 : fail(r, "empty file: not a t2t capture file");
	if (strncmp(r->buf, CAPTURE_MAGIC, strlen(CAPTURE_MAGIC)))
		return fail(r, "not a t2t capture file (the first line must be '"
			    CAPTURE_MAGIC "%d')", CAPTURE_VERSION);
	v = r->buf + strlen(CAPTURE_MAGIC);
	errno = 0;
	ver = strtol(v, &end, 10);
	if (errno || end == v || *end)
		return fail(r, "bad version '%s'", v);
	if (ver < 1 || ver > CAPTURE_VERSION)
		return fail(r, "capture format version %ld; this reader knows versions 1 to %d",
			    ver, CAPTURE_VERSION);
	r->version = (int)ver;

	memset(&r->meta, 0, sizeof(r->meta));
	for (;;) {
		char *eq;

		ret = next_line(r);
		if (ret < 0)
			return -1;
		if (!ret)
			return fail(r, "ends inside the header (file cut short?)");
		if (!strcmp(r->buf, r->version == 1 ? CAPTURE_COLUMNS_V1 : CAPTURE_COLUMNS))
			break;
		if (!strcmp(r->buf, "#"))
			continue;
		if (strncmp(r->buf, "# ", 2))
			return fail(r, "expected '# key=value' or the column line '%s'",
				    r->version == 1 ? CAPTURE_COLUMNS_V1 : CAPTURE_COLUMNS);
		eq = strchr(r->buf + 2, '=');
		if (!eq)
			return fail(r, "header line without '=': '%.80s'", r->buf);
		*eq = '\0';
		if (capture_meta_get(&r->meta, r->buf + 2))
			return fail(r, "header key '%s' given twice", r->buf + 2);
		if (strlen(eq + 1) >= CAPTURE_VAL_LEN)
			return fail(r, "header value of '%s' longer than %d bytes",
				    r->buf + 2, CAPTURE_VAL_LEN - 1);
		ret = capture_meta_set(&r->meta, r->buf + 2, "%s", eq + 1);
		if (ret == -EINVAL)
			return fail(r, "bad header key '%.40s' (use [a-z0-9_.-])", r->buf + 2);
		if (ret)
			return fail(r, "more than %d header keys", CAPTURE_META_MAX);
	}
	if (!capture_meta_get(&r->meta, "path"))
		return fail(r, "the header names no path ('# path=...')");
	return 0;
}

int capture_reader_open(struct capture_reader *r, const char *path)
{
	memset(r, 0, sizeof(*r));
	r->name = path;
	errno = 0;
	r->gz = gzopen(path, "rb");
	if (!r->gz)
		return fail(r, "%s", errno ? strerror(errno) : "out of memory");
	gzbuffer(r->gz, 1 << 17);
	if (read_header(r)) {
		gzclose(r->gz);
		r->gz = NULL;
		return -1;
	}
	return 0;
}

void capture_reader_close(struct capture_reader *r)
{
	if (r->gz)
		gzclose(r->gz);
	r->gz = NULL;
}

/* Unsigned decimal that fits in max; no sign, blanks or leading '+'. */
static int parse_unum(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned int d;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		d = (unsigned int)(*s - '0');
		if (v > (max - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int parse_flags(const char *s, uint8_t *flags)
{
	*flags = 0;
	if (!strcmp(s, "-"))
		return 0;
	for (;;) {
		size_t len = strcspn(s, "+");
		unsigned int i;

		for (i = 0; i < ORDER_F_NR; i++)
			if (strlen(order_flag_names[i]) == len && !strncmp(s, order_flag_names[i], len))
				break;
		if (i == ORDER_F_NR || (*flags & (1u << i)))
			return -EINVAL;
		*flags |= (uint8_t)(1u << i);
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

static const char *const field_names[CAPTURE_FIELDS] = {
	"order_no", "md_seq", "symbol", "side", "shares", "price", "outcome", "flags",
	"t_send", "t_hook", "t_seen", "t_decided", "t_queued", "t_sent", "t_ack", "exch_ts",
};

static int parse_record(struct capture_reader *r, struct capture_rec *rec)
{
	uint64_t *const ts[] = {
		&rec->t.t_send, &rec->t.t_hook, &rec->t.t_seen, &rec->t.t_decided,
		&rec->t.t_queued, &rec->t.t_sent, &rec->t.t_ack,
	};
	int want = r->version == 1 ? CAPTURE_FIELDS - 1 : CAPTURE_FIELDS;
	char *f[CAPTURE_FIELDS], *s = r->buf;
	uint64_t v;
	int n = 0, i;

	for (;;) {
		char *comma = strchr(s, ',');

		if (n == want)
			return fail(r, "more than %d fields", want);
		f[n++] = s;
		if (!comma)
			break;
		*comma = '\0';
		s = comma + 1;
	}
	if (n != want)
		return fail(r, "%d fields, expected %d (%s)", n, want,
			    r->version == 1 ? CAPTURE_COLUMNS_V1 : CAPTURE_COLUMNS);

	memset(rec, 0, sizeof(*rec));
	if (parse_unum(f[0], UINT64_MAX, &rec->order_no))
		return fail(r, "%s: not a number: '%.40s'", field_names[0], f[0]);
	if (parse_unum(f[1], UINT64_MAX, &rec->md_seq))
		return fail(r, "%s: not a number: '%.40s'", field_names[1], f[1]);
	if (!f[2][0] || strlen(f[2]) > 8)
		return fail(r, "symbol: 1 to 8 characters: '%.40s'", f[2]);
	strcpy(rec->symbol, f[2]);
	if (strlen(f[3]) != 1)
		return fail(r, "side: one character: '%.40s'", f[3]);
	rec->side = f[3][0];
	if (parse_unum(f[4], UINT32_MAX, &v))
		return fail(r, "shares: not a number up to 2^32-1: '%.40s'", f[4]);
	rec->shares = (uint32_t)v;
	if (parse_unum(f[5], UINT32_MAX, &v))
		return fail(r, "price: not a number up to 2^32-1: '%.40s'", f[5]);
	rec->price = (uint32_t)v;
	for (i = 0; i < ORDER_OUTCOME_NR; i++)
		if (!strcmp(f[6], order_outcome_names[i]))
			break;
	if (i == ORDER_OUTCOME_NR)
		return fail(r, "outcome: unknown '%.40s'", f[6]);
	rec->outcome = (uint8_t)i;
	if (parse_flags(f[7], &rec->flags))
		return fail(r, "flags: '-' or names from retrans, catchup joined by '+': '%.40s'",
			    f[7]);
	for (i = 0; i < 7; i++)
		if (parse_unum(f[8 + i], UINT64_MAX, ts[i]))
			return fail(r, "%s: not a number: '%.40s'", field_names[8 + i],
				    f[8 + i]);
	if (want == CAPTURE_FIELDS && parse_unum(f[15], UINT64_MAX, &rec->exch_ts))
		return fail(r, "exch_ts: not a number: '%.40s'", f[15]);
	return 0;
}

int capture_read(struct capture_reader *r, struct capture_rec *rec)
{
	uint64_t n;
	int ret;

	if (r->done)
		return 0;
	ret = next_line(r);
	if (ret < 0)
		return -1;
	if (!ret)
		return fail(r, "no '" CAPTURE_TRAILER "N' trailer after %" PRIu64
			    " records (file cut short?)", r->records);
	if (r->buf[0] != '#') {
		if (parse_record(r, rec))
			return -1;
		r->records++;
		return 1;
	}
	if (strncmp(r->buf, CAPTURE_TRAILER, strlen(CAPTURE_TRAILER)))
		return fail(r, "comment line among the records: '%.60s'", r->buf);
	if (parse_unum(r->buf + strlen(CAPTURE_TRAILER), UINT64_MAX, &n))
		return fail(r, "bad trailer '%.60s'", r->buf);
	if (n != r->records)
		return fail(r, "trailer says %" PRIu64 " records, the file has %" PRIu64,
			    n, r->records);
	ret = next_line(r);
	if (ret < 0)
		return -1;
	if (ret)
		return fail(r, "text after the trailer");
	r->done = true;
	return 0;
}

/* ---- stages ---- */

void capture_hists_reset(struct capture_hists *h)
{
	h->records = 0;
	h->clock_errors = 0;
	for (int i = 0; i < STAGE_NR; i++)
		hdr_reset(&h->stage[i]);
}

void capture_hists_add(struct capture_hists *h, const struct capture_rec *r)
{
	int64_t v[STAGE_NR];
	unsigned int errs = 0;
	unsigned int mask = order_stages(&r->t, r->outcome, r->flags, v, &errs);

	h->records++;
	h->clock_errors += errs;
	for (int i = 0; i < STAGE_NR; i++)
		if (mask & (1u << i))
			hdr_record(&h->stage[i], v[i]);
}
