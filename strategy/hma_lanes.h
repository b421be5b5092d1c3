/* SPDX-License-Identifier: MIT */
/*
 * The incremental kernel in lanes: eight HMA lengths of one price series
 * at once, one SIMD lane each, for sweeps and research passes that run
 * many lengths over the same prints.  It decides the same d[t] as
 * hma_update() and applies the same stop-and-reverse rule (sar.h), so its
 * trades, PnL and orders equal the scalar kernel's, to the bit
 * (test_hma_lanes checks every tick against it).
 *
 * Why a second form of the same sums: the scalar kernel keeps R and Q,
 * whose second-level sums H and T need 128 bits, and SIMD has no 128-bit
 * lanes.  Here the second level runs over the first-level sums one by one
 * (docs/strategy.md, "The kernel in lanes"):
 *
 *	HMA  = 2 V_h / (D_s D_h) - V_n / (D_s D_n)
 *	HMA3 = 3 U_a / (D_p D_a) - U_b / (D_p D_b) - U_p / (D_p D_p)
 *
 * with V_k = sum_{i<s} (s-i) W_k[t-i] and U_k = sum_{i<p} (p-i) W_k[t-i].
 * Each of these five is below 2^59, so every running sum is an exact
 * int64.  d is the sign of sum_j c_j Y_j over the five, with integer
 * coefficients |c_j| < 2^32 (the common denominator's), taken exactly in
 * three 29-bit limbs built from 32 x 32 -> 64-bit products.  No floating
 * point is used on the way to d.
 *
 * Everything is in the struct: no allocation, and a group of eight lengths
 * keeps its whole state (about 36 KB) in the L1 cache while it runs.
 */
#ifndef STRATEGY_HMA_LANES_H
#define STRATEGY_HMA_LANES_H

#include <stddef.h>
#include <stdint.h>

#include "strategy/hma.h"
#include "strategy/sar.h"

#define HMA_LANES	8
#define HMA_LANES_BLOCK	1024		/* prices copied in per step */
#define HMA_LANES_HIST	HMA_LEN_MAX	/* x[t - n] for n up to 256 */
#define HMA_LANES_TERMS	5		/* V_h, V_n, U_a, U_b, U_p */
#define HMA_LANES_PRING	128		/* >= p: W_h, W_a, W_b over p ticks */
#define HMA_LANES_SRING	16		/* >= s: W_n over s ticks */

typedef int64_t hma_v8q __attribute__((vector_size(64)));
typedef double hma_v8d __attribute__((vector_size(64)));

/* Which instructions run the lanes; AUTO picks the best the CPU has. */
enum hma_isa {
	HMA_ISA_AUTO,
	HMA_ISA_GENERIC,	/* plain C on vector types: any x86-64 */
	HMA_ISA_AVX2,
	HMA_ISA_AVX512,		/* AVX-512 F, DQ, VL, BW */
	HMA_ISA_NR,
};

extern const char *const hma_isa_names[HMA_ISA_NR];

/*
 * A position change of lane @lane at x[@i] of the prices given to
 * hma_lanes_run(): @chg is new - old (+-1 entry, +-2 reversal).
 */
typedef void (*hma_lanes_change_fn)(void *ctx, unsigned int lane, size_t i, int chg);

struct hma_lanes;
typedef void (*hma_lanes_step_fn)(struct hma_lanes *hl, size_t m, size_t off,
				  hma_lanes_change_fn fn, void *ctx);

struct hma_lanes {
	/* per lane, constant: the windows, t0 and the five coefficients in limbs */
	hma_v8q n, h, a, b, s, p, t0;
	hma_v8q c_lo[HMA_LANES_TERMS], c_hi[HMA_LANES_TERMS];
	hma_v8q unit;
	hma_v8d fee;
	/* first level: weighted and plain sums of x over n, h, a, b ticks */
	hma_v8q Wn, Sn, Wh, Sh, Wa, Sa, Wb, Sb;
	/* second level: V_h, V_n over s ticks; U_a, U_b, U_p over p ticks */
	hma_v8q Vh, SVh, Vn, SVn, Ua, SUa, Ub, SUb, Up, SUp;
	/* the rule and the orders it makes, per lane */
	hma_v8q pos, trades, orders, cash, max_pos;
	hma_v8d entry, pnl;
	/* W_h, W_a, W_b of the last p ticks and W_n of the last s, slot t & (size - 1) */
	hma_v8q ring_h[HMA_LANES_PRING], ring_a[HMA_LANES_PRING], ring_b[HMA_LANES_PRING];
	hma_v8q ring_n[HMA_LANES_SRING];
	/* the last HMA_LANES_HIST prices (0 before the first), then the step's */
	int64_t x[HMA_LANES_HIST + HMA_LANES_BLOCK];
	uint64_t t;			/* prices consumed */
	uint32_t last;			/* the last price */
	unsigned int lanes;		/* in use; the others repeat lane 0 */
	unsigned int length[HMA_LANES];
	enum hma_isa isa;
	hma_lanes_step_fn step;
	int8_t *d_out;			/* tests: d of every lane at every tick, or NULL */
} __attribute__((aligned(64)));

/*
 * @n (1..HMA_LANES) lengths, each in [6, 256]; @units shares per unit of
 * position for the orders' cash (NULL: 1); @fee the round-trip fee in
 * percentage points (SAR_FEE_PCT in the spec).  0, -ERANGE for a bad
 * length, -EINVAL for a bad count, -ENOTSUP when @isa is not on this CPU.
 */
int hma_lanes_init(struct hma_lanes *hl, const unsigned int *lengths, unsigned int n,
		   const uint32_t *units, double fee, enum hma_isa isa);

/* Whether this CPU runs @isa (AUTO: always). */
int hma_isa_supported(enum hma_isa isa);
/* What AUTO picks here. */
enum hma_isa hma_isa_best(void);

/*
 * Feed @n prices, every one in (0, 2^32) (the caller refuses or skips the
 * others).  @fn, if not NULL, is called for every position change.
 */
void hma_lanes_run(struct hma_lanes *hl, const uint32_t *x, size_t n,
		   hma_lanes_change_fn fn, void *ctx);

/* Lane @lane's rule with its open position closed at the last price (sar_finish()). */
void hma_lanes_result(const struct hma_lanes *hl, unsigned int lane, struct sar *out);

#endif /* STRATEGY_HMA_LANES_H */
