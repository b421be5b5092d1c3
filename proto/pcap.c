// SPDX-License-Identifier: MIT
/* Classic pcap files: streaming reader over zlib, writer over stdio (pcap.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "proto/gz_err.h"
#include "proto/pcap.h"
#include "proto/proto_err.h"

/* Every error of this reader is its err[PCAP_ERR_LEN], named after the file. */
#define fail(err, path, ...) proto_file_err(err, PCAP_ERR_LEN, path, __VA_ARGS__)

static uint32_t get32(const uint8_t *p, bool swapped)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swapped ? __builtin_bswap32(v) : v;
}

static uint16_t get16(const uint8_t *p, bool swapped)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return swapped ? __builtin_bswap16(v) : v;
}

/*
 * Up to @n bytes into @dst: what the file still has (fewer only at its
 * end), or -1 with r->err set when zlib reports damage.
 */
static long read_some(struct pcap_reader *r, void *dst, uint32_t n)
{
	uint32_t got = 0;
	int k, zerr;
	const char *msg;

	while (got < n) {
		k = gzread(r->gz, (uint8_t *)dst + got, n - got);
		if (k > 0) {
			got += (uint32_t)k;
			continue;
		}
		msg = proto_gz_msg(r->gz, r->path, &zerr);
		if (zerr == Z_OK || zerr == Z_STREAM_END)
			break;
		if (zerr == Z_BUF_ERROR)
			msg = "gzip stream cut short";
		return fail(r->err, r->path, "%s near uncompressed byte offset %llu",
			    msg, (unsigned long long)(r->offset + got));
	}
	return got;
}

static int check_header(struct pcap_reader *r, const uint8_t *h)
{
	uint32_t magic;

	memcpy(&magic, h, 4);
	if (magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_NS) {
		r->swapped = false;
	} else if (__builtin_bswap32(magic) == PCAP_MAGIC_US ||
		   __builtin_bswap32(magic) == PCAP_MAGIC_NS) {
		r->swapped = true;
		magic = __builtin_bswap32(magic);
	} else if (magic == PCAP_MAGIC_NG) {
		return fail(r->err, r->path, "a pcapng file, not a classic pcap: capture with "
			    "tcpdump -w, or convert it (editcap -F pcap)");
	} else {
		return fail(r->err, r->path, "not a pcap file (magic 0x%08x)", magic);
	}
	r->nsec = magic == PCAP_MAGIC_NS;
	r->major = get16(h + 4, r->swapped);
	r->minor = get16(h + 6, r->swapped);
	if (r->major != PCAP_VERSION_MAJOR)
		return fail(r->err, r->path, "pcap version %u.%u: only version 2 is read",
			    r->major, r->minor);
	r->snaplen = get32(h + 16, r->swapped);
	/* The upper bits: whether each frame ends in an FCS, and its length. */
	r->linktype = get32(h + 20, r->swapped) & 0x0fffffffu;
	if (get32(h + 20, r->swapped) & 0x10000000u)
		r->fcs_bytes = 2 * (get32(h + 20, r->swapped) >> 29);
	/* As libpcap: a snaplen of 0 or beyond the largest means the largest. */
	r->cap = r->snaplen && r->snaplen < PCAP_SNAPLEN_MAX ? r->snaplen : PCAP_SNAPLEN_MAX;
	return 0;
}

int pcap_open(struct pcap_reader *r, const char *path)
{
	uint8_t h[PCAP_FILE_HDR_LEN];
	long n;

	memset(r, 0, sizeof(*r));
	r->path = strdup(path);
	if (!r->path) {
		fail(r->err, path, "out of memory");
		return -1;
	}
	errno = 0;
	r->gz = gzopen(path, "rb");
	if (!r->gz) {
		fail(r->err, path, "%s", errno ? strerror(errno) : "out of memory");
		goto err;
	}
	gzbuffer(r->gz, 1 << 17);
	r->gzip = !gzdirect(r->gz);
	n = read_some(r, h, sizeof(h));
	if (n < 0)
		goto err;
	if (n < (long)sizeof(h)) {
		fail(r->err, path, "not a pcap file: %ld bytes, shorter than the %d-byte file header",
		     n, PCAP_FILE_HDR_LEN);
		goto err;
	}
	if (check_header(r, h))
		goto err;
	r->offset = PCAP_FILE_HDR_LEN;
	r->buf = malloc(r->cap);
	if (!r->buf) {
		fail(r->err, path, "out of memory for a snaplen of %u", r->cap);
		goto err;
	}
	return 0;
err:
	/* keep the message: pcap_close() does not touch err */
	pcap_close(r);
	return -1;
}

void pcap_close(struct pcap_reader *r)
{
	if (r->gz)
		gzclose(r->gz);
	free(r->buf);
	free(r->path);
	r->gz = NULL;
	r->buf = NULL;
	r->path = NULL;
}

/* The file ended inside record @index: the records end there. */
static int cut(struct pcap_reader *r, uint64_t index, const char *what, long got, uint32_t want)
{
	r->cut = true;
	fail(r->err, r->path, "cut short: record %llu at byte offset %llu has %ld of its %u %s",
	     (unsigned long long)index, (unsigned long long)r->offset, got, want, what);
	return 0;
}

int pcap_next(struct pcap_reader *r, struct pcap_record *rec)
{
	uint8_t h[PCAP_REC_HDR_LEN];
	uint64_t index = r->records + 1;
	uint32_t sec, frac, caplen, len;
	long n;

	if (r->cut)
		return 0;
	n = read_some(r, h, sizeof(h));
	if (n < 0)
		return -1;
	if (n == 0)
		return 0;
	if (n < (long)sizeof(h))
		return cut(r, index, "header bytes", n, PCAP_REC_HDR_LEN);
	sec = get32(h, r->swapped);
	frac = get32(h + 4, r->swapped);
	caplen = get32(h + 8, r->swapped);
	len = get32(h + 12, r->swapped);
	if (caplen > r->cap)
		return fail(r->err, r->path, "record %llu at byte offset %llu: %u bytes captured, "
			    "more than the snaplen (%u): not a pcap, or damaged",
			    (unsigned long long)index, (unsigned long long)r->offset, caplen, r->cap);
	if (caplen > len)
		return fail(r->err, r->path, "record %llu at byte offset %llu: %u bytes captured "
			    "of a %u-byte packet: damaged",
			    (unsigned long long)index, (unsigned long long)r->offset, caplen, len);
	n = read_some(r, r->buf, caplen);
	if (n < 0)
		return -1;
	if (n < (long)caplen)
		return cut(r, index, "captured bytes", n, caplen);
	rec->data = r->buf;
	rec->caplen = caplen;
	rec->len = len;
	rec->ts_ns = (uint64_t)sec * 1000000000u + (uint64_t)frac * (r->nsec ? 1 : 1000);
	rec->index = index;
	rec->offset = r->offset;
	r->offset += PCAP_REC_HDR_LEN + caplen;
	r->records++;
	r->truncated += caplen < len;
	return 1;
}

static void put32(uint8_t *p, uint32_t v, bool big)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (big ? 24 - 8 * i : 8 * i));
}

static void put16(uint8_t *p, uint16_t v, bool big)
{
	p[0] = (uint8_t)(big ? v >> 8 : v);
	p[1] = (uint8_t)(big ? v : v >> 8);
}

static int put(struct pcap_writer *w, const void *p, size_t n)
{
	if (w->failed)
		return -1;
	if (n && fwrite(p, 1, n, w->f) != n) {
		w->failed = true;
		return fail(w->err, w->path, "write failed: %s", strerror(errno));
	}
	w->bytes += n;
	return 0;
}

int pcap_writer_open(struct pcap_writer *w, const char *path, const struct pcap_writer_cfg *cfg)
{
	uint8_t h[PCAP_FILE_HDR_LEN] = { 0 };
	bool big;

	memset(w, 0, sizeof(*w));
	w->cfg = *cfg;
	if (!w->cfg.snaplen || w->cfg.snaplen > PCAP_SNAPLEN_MAX)
		w->cfg.snaplen = PCAP_SNAPLEN_MAX;
	if (!w->cfg.linktype)
		w->cfg.linktype = PCAP_LINKTYPE_ETHERNET;
	big = w->cfg.big_endian;
	w->path = strdup(path);
	if (!w->path)
		return fail(w->err, path, "out of memory");
	w->f = fopen(path, "wb");
	if (!w->f) {
		fail(w->err, path, "%s", strerror(errno));
		free(w->path);
		w->path = NULL;
		return -1;
	}
	put32(h, w->cfg.nsec ? PCAP_MAGIC_NS : PCAP_MAGIC_US, big);
	put16(h + 4, PCAP_VERSION_MAJOR, big);
	put16(h + 6, PCAP_VERSION_MINOR, big);
	/* thiszone and sigfigs stay 0: the stamps are UTC, as everyone writes */
	put32(h + 16, w->cfg.snaplen, big);
	put32(h + 20, w->cfg.linktype, big);
	return put(w, h, sizeof(h));
}

int pcap_write(struct pcap_writer *w, uint64_t ts_ns, const void *pkt, uint32_t len)
{
	uint8_t h[PCAP_REC_HDR_LEN];
	uint64_t sec = ts_ns / 1000000000u;
	uint32_t frac = (uint32_t)(ts_ns % 1000000000u);
	uint32_t caplen = len < w->cfg.snaplen ? len : w->cfg.snaplen;
	bool big = w->cfg.big_endian;

	if (w->failed)
		return -1;
	if (sec > UINT32_MAX) {
		w->failed = true;
		return fail(w->err, w->path, "record %llu: time %llu s past what a pcap holds",
			    (unsigned long long)w->records + 1, (unsigned long long)sec);
	}
	put32(h, (uint32_t)sec, big);
	put32(h + 4, w->cfg.nsec ? frac : frac / 1000, big);
	put32(h + 8, caplen, big);
	put32(h + 12, len, big);
	if (put(w, h, sizeof(h)) || put(w, pkt, caplen))
		return -1;
	w->records++;
	return 0;
}

int pcap_writer_close(struct pcap_writer *w)
{
	int ret = w->failed ? -1 : 0;

	if (w->f && fclose(w->f) && !ret)
		ret = fail(w->err, w->path, "close failed: %s", strerror(errno));
	free(w->path);
	w->f = NULL;
	w->path = NULL;
	return ret;
}
