/* SPDX-License-Identifier: MIT */
/*
 * One step of the lanes over hl->x[HMA_LANES_HIST ..][0, m): the body
 * hma_lanes.c compiles once per instruction set.  The includer defines
 * STEP_FN (the function's name) and, for its instructions:
 *
 *	GATHER(base, idx)	the int64s base[idx[k]] of eight int32 indexes
 *	MUL_U32(a, b)		low 32 bits of a times low 32 bits of b, unsigned
 *	MUL_S32(a, b)		the same, signed
 *	MUL_SMALL(k, w)		k w for 0 <= k < 2^32 and 0 <= w < 2^63, k w < 2^63
 *	ANY(m)			whether any lane of mask m is set
 *
 * Not a header of its own: no include guard, on purpose.
 */

static void STEP_FN(struct hma_lanes *hl, size_t m, size_t off, hma_lanes_change_fn fn,
		    void *ctx)
{
	const hma_v8q m29 = (hma_v8q){ 0 } + ((1 << 29) - 1);
	const hma_v8i lane = { 0, 1, 2, 3, 4, 5, 6, 7 };
	const hma_v8q n = hl->n, h = hl->h, a = hl->a, b = hl->b, s = hl->s, p = hl->p;
	const hma_v8i n32 = __builtin_convertvector(n, hma_v8i);
	const hma_v8i h32 = __builtin_convertvector(h, hma_v8i);
	const hma_v8i a32 = __builtin_convertvector(a, hma_v8i);
	const hma_v8i b32 = __builtin_convertvector(b, hma_v8i);
	const hma_v8i s32 = __builtin_convertvector(s, hma_v8i);
	const hma_v8i p32 = __builtin_convertvector(p, hma_v8i);
	hma_v8q Wn = hl->Wn, Sn = hl->Sn, Wh = hl->Wh, Sh = hl->Sh;
	hma_v8q Wa = hl->Wa, Sa = hl->Sa, Wb = hl->Wb, Sb = hl->Sb;
	hma_v8q Vh = hl->Vh, SVh = hl->SVh, Vn = hl->Vn, SVn = hl->SVn;
	hma_v8q Ua = hl->Ua, SUa = hl->SUa, Ub = hl->Ub, SUb = hl->SUb, Up = hl->Up, SUp = hl->SUp;
	hma_v8q pos = hl->pos;
	uint64_t t = hl->t;

	for (size_t i = 0; i < m; i++, t++) {
		const int64_t xs = hl->x[HMA_LANES_HIST + i];
		const hma_v8q x = (hma_v8q){ 0 } + xs;
		const hma_v8i at = (hma_v8i){ 0 } + (int32_t)(HMA_LANES_HIST + i);
		const hma_v8i tt = (hma_v8i){ 0 } + (int32_t)(uint32_t)t;
		/* slot * HMA_LANES + lane of each ring's value leaving now */
		const hma_v8i out_s = (((tt - s32) & (HMA_LANES_PRING - 1)) << 3) + lane;
		const hma_v8i out_p = (((tt - p32) & (HMA_LANES_PRING - 1)) << 3) + lane;
		const hma_v8i out_n = (((tt - s32) & (HMA_LANES_SRING - 1)) << 3) + lane;
		const unsigned int slot = (unsigned int)t & (HMA_LANES_PRING - 1);
		hma_v8q xo, y, yl, yh, A0, A1, A2, d, up, down, chg_m;

		/* First level: W += k x - S; S += x - x[t - k] (hma_incr.c's roll64()). */
		xo = GATHER(hl->x, at - n32);
		Wn += MUL_U32(n, x) - Sn;
		Sn += x - xo;
		xo = GATHER(hl->x, at - h32);
		Wh += MUL_U32(h, x) - Sh;
		Sh += x - xo;
		xo = GATHER(hl->x, at - a32);
		Wa += MUL_U32(a, x) - Sa;
		Sa += x - xo;
		xo = GATHER(hl->x, at - b32);
		Wb += MUL_U32(b, x) - Sb;
		Sb += x - xo;

		/* Second level, the same roll over the first-level sums; read before the write. */
		y = GATHER((const int64_t *)hl->ring_h, out_s);
		Vh += MUL_SMALL(s, Wh) - SVh;
		SVh += Wh - y;
		y = GATHER((const int64_t *)hl->ring_n, out_n);
		Vn += MUL_SMALL(s, Wn) - SVn;
		SVn += Wn - y;
		y = GATHER((const int64_t *)hl->ring_a, out_p);
		Ua += MUL_SMALL(p, Wa) - SUa;
		SUa += Wa - y;
		y = GATHER((const int64_t *)hl->ring_b, out_p);
		Ub += MUL_SMALL(p, Wb) - SUb;
		SUb += Wb - y;
		y = GATHER((const int64_t *)hl->ring_h, out_p);
		Up += MUL_SMALL(p, Wh) - SUp;
		SUp += Wh - y;
		hl->ring_h[slot] = Wh;
		hl->ring_a[slot] = Wa;
		hl->ring_b[slot] = Wb;
		hl->ring_n[t & (HMA_LANES_SRING - 1)] = Wn;

		/*
		 * d = sign(sum c_j Y_j): c = c_hi 2^29 + c_lo and Y = yh 2^29 + yl,
		 * 0 <= c_lo, yl < 2^29, 0 <= yh < 2^30, |c_hi| < 2^3, so each
		 * column sum stays far inside 63 bits; then the carries, and the
		 * sign of A2 2^58 + A1 2^29 + A0 with 0 <= A1, A0 < 2^29.
		 */
		A0 = A1 = A2 = (hma_v8q){ 0 };
#define TERM(Y, j)							\
		do {							\
			yl = (Y) & m29;					\
			yh = (Y) >> 29;					\
			A0 += MUL_U32(hl->c_lo[j], yl);			\
			A1 += MUL_S32(hl->c_hi[j], yl) + MUL_U32(hl->c_lo[j], yh); \
			A2 += MUL_S32(hl->c_hi[j], yh);			\
		} while (0)
		TERM(Vh, 0);
		TERM(Vn, 1);
		TERM(Ua, 2);
		TERM(Ub, 3);
		TERM(Up, 4);
#undef TERM
		A1 += A0 >> 29;
		A0 &= m29;
		A2 += A1 >> 29;
		A1 &= m29;
		up = (A2 > 0) | ((A2 == 0) & ((A1 | A0) != 0));
		down = A2 < 0;
		/* masks are -1: d = +1, -1 or 0, and 0 before t0 */
		d = (down - up) & (((hma_v8q){ 0 } + (int64_t)t) >= hl->t0);
		if (hl->d_out)
			for (unsigned int k = 0; k < HMA_LANES; k++)
				hl->d_out[(off + i) * HMA_LANES + k] = (int8_t)d[k];

		/* The rule (sar_step()): a change where d is set and is not the position. */
		chg_m = (d != 0) & (d != pos);
		if (ANY(chg_m)) {
			const hma_v8q close_m = chg_m & (pos != 0);
			const hma_v8q chg = (d - pos) & chg_m;
			const hma_v8d xd = (hma_v8d){ 0 } + (double)xs;
			hma_v8d ret;

			/* sar_trade_return_fee(), operation for operation */
			ret = __builtin_convertvector(pos, hma_v8d) * (xd - hl->entry) / hl->entry *
			      100.0 - hl->fee;
			hl->pnl = (hma_v8d)((close_m & (hma_v8q)(hl->pnl + ret)) |
					    (~close_m & (hma_v8q)hl->pnl));
			hl->trades -= close_m;
			hl->orders -= chg_m;
			hl->cash -= chg * hl->unit * x;
			hl->max_pos |= chg_m & hl->unit;
			hl->entry = (hma_v8d)((chg_m & (hma_v8q)xd) | (~chg_m & (hma_v8q)hl->entry));
			pos = (chg_m & d) | (~chg_m & pos);
			if (fn)
				for (unsigned int k = 0; k < hl->lanes; k++)
					if (chg_m[k])
						fn(ctx, k, off + i, (int)chg[k]);
		}
	}
	hl->Wn = Wn, hl->Sn = Sn, hl->Wh = Wh, hl->Sh = Sh;
	hl->Wa = Wa, hl->Sa = Sa, hl->Wb = Wb, hl->Sb = Sb;
	hl->Vh = Vh, hl->SVh = SVh, hl->Vn = Vn, hl->SVn = SVn;
	hl->Ua = Ua, hl->SUa = SUa, hl->Ub = Ub, hl->SUb = SUb, hl->Up = Up, hl->SUp = SUp;
	hl->pos = pos;
	hl->t = t;
}
