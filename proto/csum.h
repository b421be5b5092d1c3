/* SPDX-License-Identifier: MIT */
/*
 * Internet checksum (RFC 1071) helpers.
 *
 * Sums are kept in "memory order": 16-bit words as the host loads them from
 * the packet with memcpy, never byte-swapped.  RFC 1071's byte-order
 * independence makes the folded result correct to store back with memcpy on
 * any host.  The accumulator is 64 bits wide and adds 32-bit words, so a
 * sum of one packet never overflows and 2^32 = 2^16 = 1 (mod 0xffff) makes
 * the final fold exact.  Partial sums of separate pieces (pseudo-header,
 * header, payload) add up as long as each piece starts at an even offset.
 */
#ifndef PROTO_CSUM_H
#define PROTO_CSUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Add @len bytes at @buf to the running sum @sum. */
static inline uint64_t csum_partial(const void *buf, size_t len, uint64_t sum)
{
	const uint8_t *p = buf;

	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		sum += (v & 0xffffffffu) + (v >> 32);
		p += 8;
		len -= 8;
	}
	if (len >= 4) {
		uint32_t v;

		memcpy(&v, p, 4);
		sum += v;
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		uint16_t v;

		memcpy(&v, p, 2);
		sum += v;
		p += 2;
		len -= 2;
	}
	if (len) {
		/* Odd last byte: pad with a zero byte after it. */
		uint8_t pad[2] = { p[0], 0 };
		uint16_t v;

		memcpy(&v, pad, 2);
		sum += v;
	}
	return sum;
}

/* Add one 16-bit word given in host order (a length, a protocol number). */
static inline uint64_t csum_add_host16(uint64_t sum, uint16_t host)
{
	uint8_t b[2] = { (uint8_t)(host >> 8), (uint8_t)host };
	uint16_t v;

	memcpy(&v, b, 2);
	return sum + v;
}

/*
 * Sum contribution of a field from its in-memory value (see be32_mem())
 * without reading memory.  Offsets count from the start of the summed data.
 * A field at an odd offset has its bytes in the other halves of the 16-bit
 * words; shifting the value left by 8 does exactly that, modulo 0xffff, on
 * either byte order.
 */
static inline uint64_t csum_field16_even(uint16_t mem) { return mem; }
static inline uint64_t csum_field32_even(uint32_t mem) { return mem; }
static inline uint64_t csum_field64_even(uint64_t mem)
{
	return (mem & 0xffffffffu) + (mem >> 32);
}
static inline uint64_t csum_field32_odd(uint32_t mem)
{
	return (uint64_t)mem << 8;
}
static inline uint64_t csum_field64_odd(uint64_t mem)
{
	return ((mem & 0xffffffffu) << 8) + ((mem >> 32) << 8);
}
/* One byte at an even offset: the word is (byte, next byte = 0 here). */
static inline uint64_t csum_byte_even(uint8_t b)
{
	uint8_t w[2] = { b, 0 };
	uint16_t v;

	memcpy(&v, w, 2);
	return v;
}

/* Fold to the 16-bit one's complement sum (not yet inverted). */
static inline uint16_t csum_fold(uint64_t sum)
{
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The checksum field value: inverted fold, to store with memcpy. */
static inline uint16_t csum_finish(uint64_t sum)
{
	return (uint16_t)~csum_fold(sum);
}

/* Checksum of a whole buffer (e.g. an IPv4 header with its field zeroed). */
static inline uint16_t inet_csum(const void *buf, size_t len)
{
	return csum_finish(csum_partial(buf, len, 0));
}

/*
 * RFC 1624 eqn. 3 incremental update: a 16-bit word covered by checksum
 * @check changed from @old to @new (all memory order).  HC' = ~(~HC + ~m + m').
 */
static inline uint16_t csum_replace16(uint16_t check, uint16_t old,
				      uint16_t new)
{
	uint64_t sum = (uint16_t)~check;

	sum += (uint16_t)~old;
	sum += new;
	return csum_finish(sum);
}

#endif /* PROTO_CSUM_H */
