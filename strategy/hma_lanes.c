// SPDX-License-Identifier: MIT
/*
 * The kernel in lanes (hma_lanes.h): constants, the three builds of the
 * step (plain vector C, AVX2, AVX-512) and the choice between them.
 *
 * Built with -ffp-contract=off (strategy/build.mk): the trade return must
 * be the scalar rule's operations, not a fused multiply-add of them.
 */
#include <errno.h>
#include <string.h>

#include <immintrin.h>

#include "strategy/hma_lanes.h"

typedef int32_t hma_v8i __attribute__((vector_size(32)));

const char *const hma_isa_names[HMA_ISA_NR] = {
	[HMA_ISA_AUTO] = "auto",
	[HMA_ISA_GENERIC] = "generic",
	[HMA_ISA_AVX2] = "avx2",
	[HMA_ISA_AVX512] = "avx512",
};

/* ---- plain C: any x86-64 ---- */

static inline hma_v8q gather_generic(const int64_t *base, hma_v8i idx)
{
	hma_v8q v;

	for (int k = 0; k < HMA_LANES; k++)
		v[k] = base[idx[k]];
	return v;
}

static inline int any_generic(hma_v8q m)
{
	int64_t o = 0;

	for (int k = 0; k < HMA_LANES; k++)
		o |= m[k];
	return o != 0;
}

#define STEP_FN step_generic
#define GATHER(base, idx) gather_generic((base), (idx))
#define MUL_U32(x, y) (((x) & 0xffffffffll) * ((y) & 0xffffffffll))
#define MUL_S32(x, y) ((((x) << 32) >> 32) * (((y) << 32) >> 32))
#define MUL_SMALL(k, w) (MUL_U32((k), (w)) + (MUL_U32((k), (w) >> 32) << 32))
#define ANY(m) any_generic(m)
#include "strategy/hma_lanes_step.h"
#undef STEP_FN
#undef GATHER
#undef MUL_U32
#undef MUL_S32
#undef MUL_SMALL
#undef ANY

/* ---- AVX2: two 256-bit halves per vector ---- */

#pragma GCC push_options
#pragma GCC target("avx2")

union v8q_halves {
	hma_v8q v;
	__m256i h[2];
};

static inline hma_v8q gather_avx2(const int64_t *base, hma_v8i idx)
{
	union { hma_v8i v; __m128i h[2]; } i = { .v = idx };
	union v8q_halves r;

	r.h[0] = _mm256_i32gather_epi64((const long long *)base, i.h[0], 8);
	r.h[1] = _mm256_i32gather_epi64((const long long *)base, i.h[1], 8);
	return r.v;
}

static inline hma_v8q mul_u32_avx2(hma_v8q x, hma_v8q y)
{
	union v8q_halves a = { .v = x }, b = { .v = y }, r;

	r.h[0] = _mm256_mul_epu32(a.h[0], b.h[0]);
	r.h[1] = _mm256_mul_epu32(a.h[1], b.h[1]);
	return r.v;
}

static inline hma_v8q mul_s32_avx2(hma_v8q x, hma_v8q y)
{
	union v8q_halves a = { .v = x }, b = { .v = y }, r;

	r.h[0] = _mm256_mul_epi32(a.h[0], b.h[0]);
	r.h[1] = _mm256_mul_epi32(a.h[1], b.h[1]);
	return r.v;
}

static inline int any_avx2(hma_v8q m)
{
	union v8q_halves u = { .v = m };
	__m256i o = _mm256_or_si256(u.h[0], u.h[1]);

	return !_mm256_testz_si256(o, o);
}

#define STEP_FN step_avx2
#define GATHER(base, idx) gather_avx2((base), (idx))
#define MUL_U32(x, y) mul_u32_avx2((x), (y))
#define MUL_S32(x, y) mul_s32_avx2((x), (y))
#define MUL_SMALL(k, w) (MUL_U32((k), (w)) + (MUL_U32((k), (w) >> 32) << 32))
#define ANY(m) any_avx2(m)
#include "strategy/hma_lanes_step.h"
#undef STEP_FN
#undef GATHER
#undef MUL_U32
#undef MUL_S32
#undef MUL_SMALL
#undef ANY

#pragma GCC pop_options

/* ---- AVX-512: one register per vector ---- */

#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512vl,avx512bw")

#define STEP_FN step_avx512
#define GATHER(base, idx) \
	((hma_v8q)_mm512_i32gather_epi64((__m256i)(idx), (const void *)(base), 8))
#define MUL_U32(x, y) ((hma_v8q)_mm512_mul_epu32((__m512i)(x), (__m512i)(y)))
#define MUL_S32(x, y) ((hma_v8q)_mm512_mul_epi32((__m512i)(x), (__m512i)(y)))
#define MUL_SMALL(k, w) ((k) * (w))
#define ANY(m) (_mm512_test_epi64_mask((__m512i)(m), (__m512i)(m)) != 0)
#include "strategy/hma_lanes_step.h"
#undef STEP_FN
#undef GATHER
#undef MUL_U32
#undef MUL_S32
#undef MUL_SMALL
#undef ANY

#pragma GCC pop_options

/* ---- the choice ---- */

int hma_isa_supported(enum hma_isa isa)
{
	__builtin_cpu_init();
	switch (isa) {
	case HMA_ISA_AUTO:
	case HMA_ISA_GENERIC:
		return 1;
	case HMA_ISA_AVX2:
		return __builtin_cpu_supports("avx2");
	case HMA_ISA_AVX512:
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
		       __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
	default:
		return 0;
	}
}

enum hma_isa hma_isa_best(void)
{
	if (hma_isa_supported(HMA_ISA_AVX512))
		return HMA_ISA_AVX512;
	if (hma_isa_supported(HMA_ISA_AVX2))
		return HMA_ISA_AVX2;
	return HMA_ISA_GENERIC;
}

static int64_t gcd64(int64_t x, int64_t y)
{
	if (x < 0)
		x = -x;
	if (y < 0)
		y = -y;
	while (y) {
		int64_t r = x % y;

		x = y;
		y = r;
	}
	return x;
}

/*
 * The five coefficients of one length: the terms' denominators D_s D_h,
 * D_s D_n, D_p D_a, D_p D_b, D_p D_p brought to their least common
 * multiple, then divided by the coefficients' common factor.  Below 2^32
 * for every length (test_hma_lanes checks all of them).
 */
static int coefficients(const struct hma_params *hp, int64_t c[HMA_LANES_TERMS])
{
	const int64_t den[HMA_LANES_TERMS] = {
		hp->Ds * hp->Dh, hp->Ds * hp->Dn, hp->Dp * hp->Da, hp->Dp * hp->Db, hp->Dp * hp->Dp,
	};
	static const int64_t sign[HMA_LANES_TERMS] = { 2, -1, -3, 1, 1 };
	i128 lcm = 1;
	int64_t g = 0;

	for (int j = 0; j < HMA_LANES_TERMS; j++) {
		lcm = lcm / gcd64((int64_t)(lcm % den[j]), den[j]) * den[j];
		if (lcm > ((i128)1 << 100))
			return -ERANGE;
	}
	for (int j = 0; j < HMA_LANES_TERMS; j++) {
		i128 v = lcm / den[j] * sign[j];

		if (v > INT64_MAX || v < -INT64_MAX)
			return -ERANGE;
		c[j] = (int64_t)v;
		g = gcd64(g, c[j]);
	}
	for (int j = 0; j < HMA_LANES_TERMS; j++) {
		c[j] /= g;
		if (c[j] >= (1ll << 32) || c[j] <= -(1ll << 32))
			return -ERANGE;
	}
	return 0;
}

int hma_lanes_init(struct hma_lanes *hl, const unsigned int *lengths, unsigned int nl,
		   const uint32_t *units, double fee, enum hma_isa isa)
{
	static const hma_lanes_step_fn steps[HMA_ISA_NR] = {
		[HMA_ISA_GENERIC] = step_generic,
		[HMA_ISA_AVX2] = step_avx2,
		[HMA_ISA_AVX512] = step_avx512,
	};

	if (nl < 1 || nl > HMA_LANES || (unsigned int)isa >= HMA_ISA_NR)
		return -EINVAL;
	if (!hma_isa_supported(isa))
		return -ENOTSUP;
	memset(hl, 0, sizeof(*hl));
	hl->isa = isa == HMA_ISA_AUTO ? hma_isa_best() : isa;
	hl->step = steps[hl->isa];
	hl->lanes = nl;
	for (unsigned int k = 0; k < HMA_LANES; k++) {
		/* lanes past nl repeat lane 0: real work, never read */
		unsigned int from = k < nl ? k : 0;
		struct hma_params hp;
		int64_t c[HMA_LANES_TERMS];
		int err = hma_params_init(&hp, lengths[from]);

		if (!err)
			err = coefficients(&hp, c);
		if (err)
			return err;
		hl->length[k] = hp.L;
		hl->n[k] = hp.n;
		hl->h[k] = hp.h;
		hl->a[k] = hp.a;
		hl->b[k] = hp.b;
		hl->s[k] = hp.s;
		hl->p[k] = hp.p;
		hl->t0[k] = hp.t0;
		for (int j = 0; j < HMA_LANES_TERMS; j++) {
			hl->c_lo[j][k] = c[j] & ((1 << 29) - 1);
			hl->c_hi[j][k] = c[j] >> 29;
		}
		hl->unit[k] = units ? units[from] : 1;
		hl->fee[k] = fee;
	}
	return 0;
}

void hma_lanes_run(struct hma_lanes *hl, const uint32_t *x, size_t n,
		   hma_lanes_change_fn fn, void *ctx)
{
	size_t off = 0;

	while (off < n) {
		size_t m = n - off < HMA_LANES_BLOCK ? n - off : HMA_LANES_BLOCK;

		for (size_t i = 0; i < m; i++)
			hl->x[HMA_LANES_HIST + i] = x[off + i];
		hl->step(hl, m, off, fn, ctx);
		/* the last HMA_LANES_HIST prices are the next step's history */
		memmove(hl->x, hl->x + m, HMA_LANES_HIST * sizeof(hl->x[0]));
		hl->last = x[off + m - 1];
		off += m;
	}
}

void hma_lanes_result(const struct hma_lanes *hl, unsigned int lane, struct sar *out)
{
	out->pos = (int)hl->pos[lane];
	out->entry = (uint32_t)hl->entry[lane];
	out->trades = (uint64_t)hl->trades[lane];
	out->pnl_pct = hl->pnl[lane];
	sar_finish_fee(out, hl->last, hl->fee[lane]);
}
