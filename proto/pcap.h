/* SPDX-License-Identifier: MIT */
/*
 * Classic libpcap capture files (what tcpdump -w writes and tcpreplay
 * reads): a 24-byte file header, then per record a 16-byte header and the
 * bytes captured.  Both byte orders, microsecond (0xa1b2c3d4) and
 * nanosecond (0xa1b23c4d) timestamps.  Not pcapng.
 *
 * The reader streams through zlib (a plain file is read as is, a gzip'd
 * capture is inflated) into one buffer of the file's snaplen, so a capture
 * of a whole day is never in memory.  It trusts nothing in the file: every
 * length is checked against the snaplen and the buffer before a byte is
 * read, and every error names the file, the record and its byte offset.
 * A record captured shorter than it was on the wire (snaplen) is handed
 * out as captured and counted; a file that ends inside its last record (a
 * tcpdump stopped mid-write) ends the records, with the damage said in
 * err and counted, so the caller decides what it costs.
 *
 * The writer is what t2t-pcap and the tests use: host-independent, either
 * byte order and either precision.
 */
#ifndef PROTO_PCAP_H
#define PROTO_PCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PCAP_MAGIC_US		0xa1b2c3d4u
#define PCAP_MAGIC_NS		0xa1b23c4du
#define PCAP_MAGIC_NG		0x0a0d0d0au	/* pcapng's first block */
#define PCAP_FILE_HDR_LEN	24
#define PCAP_REC_HDR_LEN	16
#define PCAP_VERSION_MAJOR	2
#define PCAP_VERSION_MINOR	4
#define PCAP_LINKTYPE_ETHERNET	1
/* libpcap's largest snaplen; a file that claims 0 or more gets this. */
#define PCAP_SNAPLEN_MAX	262144u
#define PCAP_ERR_LEN		512

struct pcap_reader {
	void *gz;		/* gzFile */
	char *path;
	uint8_t *buf;		/* the current record's bytes */
	uint32_t cap;		/* buf's size: the snaplen, bounded */
	uint32_t snaplen;	/* as the file says */
	uint32_t linktype;	/* low 28 bits of the header's field */
	uint32_t fcs_bytes;	/* frame check sequence at each frame's end, if said */
	uint16_t major, minor;
	bool swapped;		/* written in the other byte order */
	bool nsec;		/* nanosecond timestamps */
	bool gzip;
	bool cut;		/* the file ended inside a record (err says where) */
	uint64_t offset;	/* uncompressed offset of the next record */
	uint64_t records;	/* records handed out */
	uint64_t truncated;	/* of those, captured shorter than their length */
	char err[PCAP_ERR_LEN];
};

struct pcap_record {
	const uint8_t *data;	/* valid until the next pcap_next() */
	uint32_t caplen;	/* bytes in data */
	uint32_t len;		/* the packet's length on the wire */
	uint64_t ts_ns;		/* since the epoch; microseconds x 1000 */
	uint64_t index;		/* 1 for the first record */
	uint64_t offset;	/* uncompressed offset of its record header */
};

/*
 * Open @path (a pcap, plain or gzip'd) and read its file header.  Returns
 * 0, or -1 with r->err set: no such file, shorter than a file header, not
 * a pcap (a pcapng is named as such), a version other than 2.
 */
int pcap_open(struct pcap_reader *r, const char *path);
void pcap_close(struct pcap_reader *r);

/*
 * The next record: 1 with @rec set, 0 at the end of the file, -1 with
 * r->err set (a record longer than the snaplen or captured longer than it
 * was, a read error, a corrupt gzip stream).  The end may be a cut one:
 * then r->cut is set and r->err says where, and every record before was
 * whole.
 */
int pcap_next(struct pcap_reader *r, struct pcap_record *rec);

struct pcap_writer_cfg {
	uint32_t snaplen;	/* 0: PCAP_SNAPLEN_MAX */
	uint32_t linktype;	/* 0: Ethernet */
	bool nsec;		/* nanosecond timestamps, else microseconds */
	bool big_endian;	/* else little-endian (what x86 hosts write) */
};

struct pcap_writer {
	FILE *f;
	char *path;
	struct pcap_writer_cfg cfg;
	uint64_t records;
	uint64_t bytes;		/* file size so far */
	bool failed;
	char err[PCAP_ERR_LEN];
};

/* Create @path and write the file header.  0, or -1 with w->err. */
int pcap_writer_open(struct pcap_writer *w, const char *path,
		     const struct pcap_writer_cfg *cfg);

/*
 * One record of a packet of @len bytes stamped @ts_ns (since the epoch;
 * microsecond files keep whole microseconds), the first snaplen of its
 * bytes captured.  0, or -1 with w->err (a write error, a time past 2106).
 */
int pcap_write(struct pcap_writer *w, uint64_t ts_ns, const void *pkt, uint32_t len);

/* Flush and close.  0, or -1 if anything failed (w->err). */
int pcap_writer_close(struct pcap_writer *w);

#endif /* PROTO_PCAP_H */
