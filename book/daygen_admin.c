// SPDX-License-Identifier: MIT
#include <string.h>

#include "book/daygen_admin.h"
#include "proto/be.h"
#include "proto/itch.h"

/* Header (tracking number 0) and the stock at byte 11 when there is one. */
static uint16_t hdr(uint8_t *dst, char type, const struct itch_hdr *h, int stock_at)
{
	uint16_t len = itch_msg_len[(uint8_t)type];

	memset(dst, 0, len);
	dst[ITCH_OFF_TYPE] = (uint8_t)type;
	be16_store(dst + ITCH_OFF_LOCATE, h->locate);
	be48_store(dst + ITCH_OFF_TIMESTAMP, h->ts);
	if (stock_at)
		memcpy(dst + stock_at, h->stock, ITCH_SYMBOL_LEN);
	return len;
}

uint16_t itch_put_trading_action(uint8_t *dst, const struct itch_hdr *h, char state)
{
	uint16_t len = hdr(dst, 'H', h, 11);

	dst[19] = (uint8_t)state;
	dst[20] = ' ';
	memcpy(dst + 21, "    ", 4);
	return len;
}

uint16_t itch_put_reg_sho(uint8_t *dst, const struct itch_hdr *h, char action)
{
	uint16_t len = hdr(dst, 'Y', h, 11);

	dst[19] = (uint8_t)action;
	return len;
}

uint16_t itch_put_mp_position(uint8_t *dst, const struct itch_hdr *h, const char mpid[4],
			      char primary, char mode, char state)
{
	uint16_t len = hdr(dst, 'L', h, 15);

	memcpy(dst + 11, mpid, 4);
	dst[23] = (uint8_t)primary;
	dst[24] = (uint8_t)mode;
	dst[25] = (uint8_t)state;
	return len;
}

uint16_t itch_put_mwcb_levels(uint8_t *dst, const struct itch_hdr *h, uint64_t l1,
			      uint64_t l2, uint64_t l3)
{
	uint16_t len = hdr(dst, 'V', h, 0);

	be64_store(dst + 11, l1);
	be64_store(dst + 19, l2);
	be64_store(dst + 27, l3);
	return len;
}

uint16_t itch_put_mwcb_status(uint8_t *dst, const struct itch_hdr *h, char level)
{
	uint16_t len = hdr(dst, 'W', h, 0);

	dst[11] = (uint8_t)level;
	return len;
}

uint16_t itch_put_ipo_quoting(uint8_t *dst, const struct itch_hdr *h, uint32_t release_s,
			      char qualifier, uint32_t price)
{
	uint16_t len = hdr(dst, 'K', h, 11);

	be32_store(dst + 19, release_s);
	dst[23] = (uint8_t)qualifier;
	be32_store(dst + 24, price);
	return len;
}

uint16_t itch_put_luld_collar(uint8_t *dst, const struct itch_hdr *h, uint32_t ref,
			      uint32_t upper, uint32_t lower, uint32_t extension)
{
	uint16_t len = hdr(dst, 'J', h, 11);

	be32_store(dst + 19, ref);
	be32_store(dst + 23, upper);
	be32_store(dst + 27, lower);
	be32_store(dst + 31, extension);
	return len;
}

uint16_t itch_put_op_halt(uint8_t *dst, const struct itch_hdr *h, char market, char action)
{
	uint16_t len = hdr(dst, 'h', h, 11);

	dst[19] = (uint8_t)market;
	dst[20] = (uint8_t)action;
	return len;
}

uint16_t itch_put_noii(uint8_t *dst, const struct itch_hdr *h, uint64_t paired,
		       uint64_t imbalance, char dir, uint32_t far, uint32_t near,
		       uint32_t ref, char cross, char variation)
{
	uint16_t len = hdr(dst, 'I', h, 28);

	be64_store(dst + 11, paired);
	be64_store(dst + 19, imbalance);
	dst[27] = (uint8_t)dir;
	be32_store(dst + 36, far);
	be32_store(dst + 40, near);
	be32_store(dst + 44, ref);
	dst[48] = (uint8_t)cross;
	dst[49] = (uint8_t)variation;
	return len;
}

uint16_t itch_put_rpii(uint8_t *dst, const struct itch_hdr *h, char flag)
{
	uint16_t len = hdr(dst, 'N', h, 11);

	dst[19] = (uint8_t)flag;
	return len;
}

uint16_t itch_put_dlcr(uint8_t *dst, const struct itch_hdr *h, char eligible,
		       uint32_t min, uint32_t max, uint32_t near, uint64_t near_time,
		       uint32_t lower, uint32_t upper)
{
	uint16_t len = hdr(dst, 'O', h, 11);

	dst[19] = (uint8_t)eligible;
	be32_store(dst + 20, min);
	be32_store(dst + 24, max);
	be32_store(dst + 28, near);
	be64_store(dst + 32, near_time);
	be32_store(dst + 40, lower);
	be32_store(dst + 44, upper);
	return len;
}
