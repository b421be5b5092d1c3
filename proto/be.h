/* SPDX-License-Identifier: MIT */
/*
 * Big-endian (network order) loads and stores at any alignment.
 *
 * Wire fields sit at odd offsets (ITCH's 6-byte timestamp starts at byte 5),
 * so every access goes through memcpy, which the compiler turns into one
 * unaligned load or store plus a bswap on x86.
 */
#ifndef PROTO_BE_H
#define PROTO_BE_H

#include <stdint.h>
#include <string.h>

/*
 * The native integer whose in-memory bytes are @v in big-endian order: what
 * beNN_store() writes, kept in a register (for checksums over fields that
 * are never read back).
 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define be16_mem(v)	__builtin_bswap16(v)
#define be32_mem(v)	__builtin_bswap32(v)
#define be64_mem(v)	__builtin_bswap64(v)
#else
#define be16_mem(v)	((uint16_t)(v))
#define be32_mem(v)	((uint32_t)(v))
#define be64_mem(v)	((uint64_t)(v))
#endif

static inline uint16_t be16_load(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return __builtin_bswap16(v);
}

static inline uint32_t be32_load(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return __builtin_bswap32(v);
}

static inline uint64_t be64_load(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return __builtin_bswap64(v);
}

/* 48-bit value (ITCH timestamp): two bytes then four. */
static inline uint64_t be48_load(const void *p)
{
	const uint8_t *b = p;

	return ((uint64_t)be16_load(b) << 32) | be32_load(b + 2);
}

static inline void be16_store(void *p, uint16_t v)
{
	v = __builtin_bswap16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void be32_store(void *p, uint32_t v)
{
	v = __builtin_bswap32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void be64_store(void *p, uint64_t v)
{
	v = __builtin_bswap64(v);
	memcpy(p, &v, sizeof(v));
}

static inline void be48_store(void *p, uint64_t v)
{
	uint8_t *b = p;

	be16_store(b, (uint16_t)(v >> 32));
	be32_store(b + 2, (uint32_t)v);
}

#endif /* PROTO_BE_H */
