/* SPDX-License-Identifier: MIT */
/*
 * SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed hash of a short
 * message, the pseudo-random function RFC 6528 asks for behind a TCP
 * connection's initial sequence number.  The key is 16 bytes from
 * getrandom(); the message a few words.  Written from the paper's
 * description; tests/unit/test_siphash.c checks it against the paper's
 * test vectors.
 */
#ifndef UTIL_SIPHASH_H
#define UTIL_SIPHASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SIPHASH_KEY_LEN 16

static inline uint64_t sip_rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

static inline uint64_t sip_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#define SIP_ROUND(v0, v1, v2, v3) do { \
	v0 += v1; v1 = sip_rotl(v1, 13); v1 ^= v0; v0 = sip_rotl(v0, 32); \
	v2 += v3; v3 = sip_rotl(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = sip_rotl(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = sip_rotl(v1, 17); v1 ^= v2; v2 = sip_rotl(v2, 32); \
} while (0)

static inline uint64_t siphash24(const uint8_t key[SIPHASH_KEY_LEN], const void *msg, size_t len)
{
	const uint8_t *p = msg;
	uint64_t k0 = sip_le64(key), k1 = sip_le64(key + 8);
	uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
	uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
	uint64_t m;
	uint8_t last[8] = { 0 };
	size_t whole = len & ~(size_t)7;

	for (size_t i = 0; i < whole; i += 8) {
		m = sip_le64(p + i);
		v3 ^= m;
		SIP_ROUND(v0, v1, v2, v3);
		SIP_ROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	/* The last block: the remaining bytes, and the length's low byte on top. */
	memcpy(last, p + whole, len - whole);
	last[7] = (uint8_t)len;
	m = sip_le64(last);
	v3 ^= m;
	SIP_ROUND(v0, v1, v2, v3);
	SIP_ROUND(v0, v1, v2, v3);
	v0 ^= m;
	v2 ^= 0xff;
	for (int i = 0; i < 4; i++)
		SIP_ROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

#undef SIP_ROUND

#endif /* UTIL_SIPHASH_H */
