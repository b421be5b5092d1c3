/* SPDX-License-Identifier: MIT */
/*
 * Encoders for the ITCH 5.0 types the proto codec does not build and only
 * the day generator writes: H Y L V W K J h I N O (layouts: the TotalView-
 * ITCH 5.0 specification; lengths: itch_msg_len).  Each writes the whole
 * message into @dst and returns its length.
 */
#ifndef BOOK_DAYGEN_ADMIN_H
#define BOOK_DAYGEN_ADMIN_H

#include <stdint.h>

struct itch_hdr {
	uint16_t locate;
	uint64_t ts;
	const char *stock;	/* 8 bytes, space-padded */
};

uint16_t itch_put_trading_action(uint8_t *dst, const struct itch_hdr *h, char state);
uint16_t itch_put_reg_sho(uint8_t *dst, const struct itch_hdr *h, char action);
uint16_t itch_put_mp_position(uint8_t *dst, const struct itch_hdr *h, const char mpid[4],
			      char primary, char mode, char state);
uint16_t itch_put_mwcb_levels(uint8_t *dst, const struct itch_hdr *h, uint64_t l1,
			      uint64_t l2, uint64_t l3);
uint16_t itch_put_mwcb_status(uint8_t *dst, const struct itch_hdr *h, char level);
uint16_t itch_put_ipo_quoting(uint8_t *dst, const struct itch_hdr *h, uint32_t release_s,
			      char qualifier, uint32_t price);
uint16_t itch_put_luld_collar(uint8_t *dst, const struct itch_hdr *h, uint32_t ref,
			      uint32_t upper, uint32_t lower, uint32_t extension);
uint16_t itch_put_op_halt(uint8_t *dst, const struct itch_hdr *h, char market, char action);
uint16_t itch_put_noii(uint8_t *dst, const struct itch_hdr *h, uint64_t paired,
		       uint64_t imbalance, char dir, uint32_t far, uint32_t near,
		       uint32_t ref, char cross, char variation);
uint16_t itch_put_rpii(uint8_t *dst, const struct itch_hdr *h, char flag);
uint16_t itch_put_dlcr(uint8_t *dst, const struct itch_hdr *h, char eligible,
		       uint32_t min, uint32_t max, uint32_t near, uint64_t near_time,
		       uint32_t lower, uint32_t upper);

#endif /* BOOK_DAYGEN_ADMIN_H */
