// SPDX-License-Identifier: MIT
#include "proto/order_token.h"
#include "proto/proto_err.h"

const char order_token_digits[32] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/* Digit value + 1 for each accepted byte, 0 for anything else. */
static const uint8_t digit_value[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15,
	['F'] = 16, ['G'] = 17, ['H'] = 18, ['J'] = 19, ['K'] = 20,
	['M'] = 21, ['N'] = 22, ['P'] = 23, ['Q'] = 24, ['R'] = 25,
	['S'] = 26, ['T'] = 27, ['V'] = 28, ['W'] = 29, ['X'] = 30,
	['Y'] = 31, ['Z'] = 32,
};

int order_token_decode(const char src[ORDER_TOKEN_LEN], uint64_t *md_seq,
		       uint32_t *order_no)
{
	uint64_t seq = 0;
	uint32_t num = 0;
	int i;

	for (i = 0; i < ORDER_TOKEN_LEN; i++) {
		uint8_t v = digit_value[(uint8_t)src[i]];

		if (!v)
			return PROTO_E_CHAR;
		if (i < ORDER_TOKEN_SEQ_DIGITS)
			seq = seq << 5 | (v - 1u);
		else
			num = num << 5 | (v - 1u);
	}
	*md_seq = seq;
	*order_no = num;
	return 0;
}
