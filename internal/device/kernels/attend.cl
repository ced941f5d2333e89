// One decoder position's attention chain in one launch each way
// (internal/gx's Attention op and its backward, ops_attend.go; the backend
// is backend_attend.go): one work-group of WG work-items per batch row b
// (KernelRows, no early return: _reduce.cl). Each part computes what its
// unfused kernel computes, in the same order where that kernel is one
// work-item per value (add_tanh, masked_softmax, softmax_grad, wsum_heads,
// repeat_rows, group_sum,
// outer_heads, additive_delta, additive_delta_sum) and as a work-group
// tree (red_sum) where it is a sum along a row (matvec_rows' score; the
// dot score and dw, which bmv_heads sums in sequence). The values a part
// writes for another work-item of the group to read go through global
// memory behind a barrier(CLK_GLOBAL_MEM_FENCE).

// the context cb[d] = Σ_i (cc·w_i)·Hb[i,d] of the weights wr (written
// before), a zero weight skipped (wsum_heads with one head)
void attend_context(__global const float *wr, __global const float *Hb, __global float *cb, const float cc,
                    const int S, const int D) {
	barrier(CLK_GLOBAL_MEM_FENCE);
	for (int d = get_local_id(0); d < D; d += WG) {
		float acc = 0.0f;
		for (int i = 0; i < S; i++) {
			float wi = cc * wr[i];
			if (wi != 0.0f) acc += wi * Hb[(size_t)i * D + d];
		}
		cb[d] = acc;
	}
}

// the masked softmax of row sr (the group's scores, written before) into
// wr, then the context (masked_softmax, then attend_context)
void attend_softmax_context(__local float *red, __global const float *sr, __global const float *mr,
                            __global float *wr, __global const float *Hb, __global float *cb, const float cc,
                            const int S, const int D) {
	barrier(CLK_GLOBAL_MEM_FENCE);
	masked_softmax_row(red, sr, mr, wr, S);
	attend_context(wr, Hb, cb, cc, S, D);
}

// The additive score, its masked softmax and the context, for P [B,S,A],
// u [B,A], c [A], v [A], mask [B,S], H [B,S,D]:
//
//	T[b,i,a] = tanh(P[b,i,a] + u[b,a] + c[a]),  s[b,i] = Σ_a T[b,i,a]·v[a],
//	w = masked softmax of s,  ctx[b,d] = Σ_i (cc·w[b,i])·H[b,i,d]
//
// each into the packed output at its offset (backend.AttendLayout).
__kernel void attend_additive(__global float *out, const int oT, const int oS, const int oW, const int oC,
                              __global const float *P, __global const float *u, __global const float *c,
                              __global const float *v, __global const float *mask, __global const float *H,
                              const float cc, const int S, const int A, const int D) {
	__local float red[WG];
	__global float *T = out + oT, *s = out + oS, *w = out + oW, *ctx = out + oC;
	int b = get_group_id(0), l = get_local_id(0);
	__global const float *ub = u + (size_t)b * A;
	for (int i = 0; i < S; i++) {
		size_t r = (size_t)b * S + i;
		float acc = 0.0f;
		for (int a = l; a < A; a += WG) {
			float t = tanh(P[r * A + a] + ub[a] + c[a]);
			T[r * A + a] = t;
			acc += t * v[a];
		}
		acc = red_sum(red, acc);
		if (l == 0) s[r] = acc;
	}
	attend_softmax_context(red, s + (size_t)b * S, mask + (size_t)b * S, w + (size_t)b * S, H + (size_t)b * S * D,
	                       ctx + (size_t)b * D, cc, S, D);
}

// The dot score of h heads, s[b·h+k,i] = sc · Σ_{j in head k} X[b,i,j]·q[b,j]
// (X [B,S,K], q [B,K], head k the columns [k·K/h, (k+1)·K/h)), then with
// one head as attend_additive; with h > 1 the mask repeated per head into
// M (repeat_rows), each head's masked softmax into hw, their mean w[b,i] =
// Σ_k c·hw[b·h+k,i] (c = 1/h, k ascending: group_sum) and the context.
__kernel void attend_dot(__global float *out, const int oS, const int oW, const int oC, const int oM, const int oHW,
                         __global const float *X, __global const float *q, const float sc, __global const float *mask,
                         __global const float *H, const float cc, const int S, const int K, const int D, const int h,
                         const float c) {
	__local float red[WG];
	__global float *s = out + oS, *w = out + oW, *ctx = out + oC;
	int b = get_group_id(0), l = get_local_id(0), kh = K / h;
	__global const float *qb = q + (size_t)b * K, *mb = mask + (size_t)b * S, *Hb = H + (size_t)b * S * D;
	for (int k = 0; k < h; k++) {
		for (int i = 0; i < S; i++) {
			__global const float *x = X + ((size_t)b * S + i) * K + k * kh;
			float acc = 0.0f;
			for (int j = l; j < kh; j += WG) acc += x[j] * qb[k * kh + j];
			acc = red_sum(red, acc);
			if (l == 0) s[((size_t)b * h + k) * S + i] = sc * acc;
		}
	}
	// one head: the softmax straight into w over the mask; several: each
	// head over M into hw, then the mean (no barrier in a branch: pocl)
	__global float *M = out + oM + (size_t)b * h * S, *hw = out + oHW + (size_t)b * h * S;
	__global const float *mr = h > 1 ? M : mb;
	__global float *pr = h > 1 ? hw : w + (size_t)b * S;
	for (int k = 0; k < h && h > 1; k++)
		for (int i = l; i < S; i += WG) M[k * S + i] = mb[i];
	barrier(CLK_GLOBAL_MEM_FENCE);
	for (int k = 0; k < h; k++) masked_softmax_row(red, s + ((size_t)b * h + k) * S, mr + k * S, pr + k * S, S);
	barrier(CLK_GLOBAL_MEM_FENCE);
	for (int i = l; i < S && h > 1; i += WG) {
		float acc = 0.0f;
		for (int k = 0; k < h; k++) acc += c * hw[k * S + i];
		w[(size_t)b * S + i] = acc;
	}
	attend_context(w + (size_t)b * S, Hb, ctx + (size_t)b * D, cc, S, D);
}

// Scores computed before: the masked softmax and the context alone.
__kernel void attend_scored(__global const float *s, __global float *out, const int oW, const int oC,
                            __global const float *mask, __global const float *H, const float cc, const int S,
                            const int D) {
	__local float red[WG];
	__global float *w = out + oW, *ctx = out + oC;
	int b = get_group_id(0);
	attend_softmax_context(red, s + (size_t)b * S, mask + (size_t)b * S, w + (size_t)b * S, H + (size_t)b * S * D,
	                       ctx + (size_t)b * D, cc, S, D);
}

// The chain backward from the context's gradient g [B,D], for weights w
// [B,S] and H [B,S,D]:
//
//	dw[b,i] = cc · Σ_d H[b,i,d]·g[b,d]           (the context's ∂w)
//	ds[b,i] = w[b,i]·(dw[b,i] − Σ_j w[b,j]·dw[b,j])  (the softmax's ∂s)
//
// and with h > 1 heads (the dot score) the heads' ∂hw[b·h+k,i] = c·dw[b,i]
// (c = 1/h: repeat_rows) after dw in dw, and ds[b·h+k,i] from the heads'
// weights hw and ∂hw (softmax_grad per head row), head k's ds reaching
// the columns of head k below:
//	δ[b,i,a] = (ds[b,i]·v[a])·(1 − T[b,i,a]²)    when fl & 4
//	du[b,a] = Σ_i (ds[b,i]·v[a])·(1 − T[b,i,a]²)  when fl & 16
//	dX[b,i,k] = (sc·ds[b,i])·q[b,k]             when fl & 32
//	dq[b,k] = Σ_i (sc·ds[b,i])·X[b,i,k]          when fl & 128, a zero skipped
//	dH[b,i,d] += (cc·w[b,i])·g[b,d]              when fl & 1 (outer_heads adding),
//	                                              after δ or dX when fl & 2
//
// the additive score's δ and ∂u (T [B,S,A], v [A]) and the dot score's
// ∂X and ∂q (X [B,S,K], q [B,K]). ds, δ or dX, and ∂u or ∂q go into the
// flat output at their offsets (backend.AttendBackLayout), δ or dX added
// into keys instead when fl & 8 (each value by the work-item that adds
// its ∂H, in the order fl names: dH and keys may be one sum); w and T are read from
// the forward's packed output (backend.AttendLayout).
// dH[b,i,d] += (cc·w[b,i])·g[b,d], batch row b, d by the work-items
// (outer_heads adding, one head)
void attend_dh(__global float *dH, __global const float *gb, __global const float *wr, const float cc, const int b,
               const int S, const int D) {
	for (int d = get_local_id(0); d < D; d += WG) {
		float gd = gb[d];
		for (int i = 0; i < S; i++) {
			size_t j = ((size_t)b * S + i) * D + d;
			float p = cc * wr[i] * gd; // rounded, then added: no FMA across statements
			dH[j] += p;
		}
	}
}

__kernel void attend_back(__global float *dw, __global float *out, const int oK, const int oQ,
                          __global const float *H, __global const float *g, __global const float *fwd,
                          const int oW, const int oT, const float cc, __global const float *v,
                          __global const float *X, __global const float *q, const float sc, const int S, const int D,
                          const int A, const int K, const int fl, __global float *dH, __global float *keys,
                          const int h, const int oHW, const float c) {
	__local float red[WG];
	__global float *ds = out, *delta = (fl & 8) ? keys : out + oK, *dX = delta, *du = out + oQ, *dq = out + oQ;
	__global const float *w = fwd + oW, *T = fwd + oT;
	int b = get_group_id(0), l = get_local_id(0);
	__global const float *gb = g + (size_t)b * D, *wr = w + (size_t)b * S;
	__global float *dwr = dw + (size_t)b * S, *dsr = ds + (size_t)b * h * S;
	for (int i = 0; i < S; i++) {
		__global const float *x = H + ((size_t)b * S + i) * D;
		float acc = 0.0f;
		for (int d = l; d < D; d += WG) acc += x[d] * gb[d];
		acc = red_sum(red, acc);
		if (l == 0) dwr[i] = cc * acc;
	}
	barrier(CLK_GLOBAL_MEM_FENCE);
	// the softmax's weights and gradient: w and dw, or per head hw and ∂hw
	__global const float *pr = wr;
	__global float *gr = dwr;
	if (h > 1) {
		pr = fwd + oHW + (size_t)b * h * S;
		gr = dw + (size_t)(get_num_groups(0) + b * h) * S;
		for (int k = 0; k < h; k++)
			for (int i = l; i < S; i += WG) gr[k * S + i] = c * dwr[i];
	}
	barrier(CLK_GLOBAL_MEM_FENCE);
	for (int k = 0; k < h; k++) {
		float dot = 0.0f;
		for (int i = l; i < S; i += WG) dot += pr[k * S + i] * gr[k * S + i];
		dot = red_sum(red, dot);
		for (int i = l; i < S; i += WG) dsr[k * S + i] = pr[k * S + i] * (gr[k * S + i] - dot);
	}
	barrier(CLK_GLOBAL_MEM_FENCE);
	if ((fl & 3) == 1) attend_dh(dH, gb, wr, cc, b, S, D);
	if (fl & (4 | 16)) {
		for (int a = l; a < A; a += WG) {
			float va = v[a], acc = 0.0f;
			for (int i = 0; i < S; i++) {
				size_t j = ((size_t)b * S + i) * A + a;
				float t = T[j];
				float d = dsr[i] * va * (1.0f - t * t);
				if (fl & 4) delta[j] = (fl & 8) ? delta[j] + d : d;
				acc += d;
			}
			if (fl & 16) du[(size_t)b * A + a] = acc;
		}
	}
	if (fl & (32 | 128)) {
		__global const float *qb = q + (size_t)b * K;
		for (int k = l; k < K; k += WG) {
			float qk = (fl & 32) ? qb[k] : 0.0f, acc = 0.0f;
			__global const float *dsk = dsr + (size_t)(k / (K / h)) * S; // the ds of column k's head
			for (int i = 0; i < S; i++) {
				size_t j = ((size_t)b * S + i) * K + k;
				float wi = sc * dsk[i];
				if (fl & 32) {
					float p = wi * qk;
					dX[j] = (fl & 8) ? dX[j] + p : p;
				}
				if ((fl & 128) && wi != 0.0f) acc += wi * X[j];
			}
			if (fl & 128) dq[(size_t)b * K + k] = acc;
		}
	}
	if ((fl & 3) == 3) attend_dh(dH, gb, wr, cc, b, S, D);
}

// The additive score's sums over the batch (backend.AttendSums), one
// work-item per a < A, the rows in order (matvec_cols):
//
//	dv[a] = Σ_n T[oT + n·A + a]·ds[n]   (added into dv, rounded, when acc)
//	dc[a] += Σ_b du[oU + b·A + a]       when B > 0, each row added into
//	                                    dc[a] in turn (the cpu's SumRows)
__kernel void attend_sums(__global float *dv, __global const float *T, const int oT, __global const float *ds,
                          const int n, const int A, const int acc, __global float *dc, __global const float *du,
                          const int oU, const int B) {
	int a = get_global_id(0);
	if (a >= A) return;
	float s = 0.0f;
	for (int i = 0; i < n; i++) s += T[oT + (size_t)i * A + a] * ds[i];
	dv[a] = acc ? dv[a] + s : s;
	if (B > 0) {
		float c = dc[a];
		for (int b = 0; b < B; b++) c += du[oU + (size_t)b * A + a];
		dc[a] = c;
	}
}
