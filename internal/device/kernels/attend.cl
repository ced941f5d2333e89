// One decoder position's attention chain in one launch each way
// (internal/gx's Attention op and its backward, ops_attend.go; the backend
// is backend_attend.go): one work-group of WG work-items per batch row b
// (KernelRows, no early return: _reduce.cl). Each part computes what its
// unfused kernel computes, in the same order where that kernel is one
// work-item per value (add_tanh, masked_softmax, softmax_grad, wsum_heads,
// outer_heads, additive_delta, additive_delta_sum) and as a work-group
// tree (red_sum) where it is a sum along a row (matvec_rows' score; the
// dot score and dw, which bmv_heads sums in sequence). The values a part
// writes for another work-item of the group to read go through global
// memory behind a barrier(CLK_GLOBAL_MEM_FENCE).

// the masked softmax of row sr (the group's scores, written before) into
// wr, then the context cb[d] = Σ_i (cc·w_i)·Hb[i,d], a zero weight skipped
// (masked_softmax, then wsum_heads with one head)
void attend_softmax_context(__local float *red, __global const float *sr, __global const float *mr,
                            __global float *wr, __global const float *Hb, __global float *cb, const float cc,
                            const int S, const int D) {
	int l = get_local_id(0);
	barrier(CLK_GLOBAL_MEM_FENCE);
	masked_softmax_row(red, sr, mr, wr, S);
	barrier(CLK_GLOBAL_MEM_FENCE);
	for (int d = l; d < D; d += WG) {
		float acc = 0.0f;
		for (int i = 0; i < S; i++) {
			float wi = cc * wr[i];
			if (wi != 0.0f) acc += wi * Hb[(size_t)i * D + d];
		}
		cb[d] = acc;
	}
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

// The dot score s[b,i] = sc · Σ_k X[b,i,k]·q[b,k] (X [B,S,K], q [B,K]),
// then as attend_additive.
__kernel void attend_dot(__global float *out, const int oS, const int oW, const int oC, __global const float *X,
                         __global const float *q, const float sc, __global const float *mask, __global const float *H,
                         const float cc, const int S, const int K, const int D) {
	__local float red[WG];
	__global float *s = out + oS, *w = out + oW, *ctx = out + oC;
	int b = get_group_id(0), l = get_local_id(0);
	__global const float *qb = q + (size_t)b * K;
	for (int i = 0; i < S; i++) {
		__global const float *x = X + ((size_t)b * S + i) * K;
		float acc = 0.0f;
		for (int k = l; k < K; k += WG) acc += x[k] * qb[k];
		acc = red_sum(red, acc);
		if (l == 0) s[(size_t)b * S + i] = sc * acc;
	}
	attend_softmax_context(red, s + (size_t)b * S, mask + (size_t)b * S, w + (size_t)b * S, H + (size_t)b * S * D,
	                       ctx + (size_t)b * D, cc, S, D);
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
                          const int A, const int K, const int fl, __global float *dH, __global float *keys) {
	__local float red[WG];
	__global float *ds = out, *delta = (fl & 8) ? keys : out + oK, *dX = delta, *du = out + oQ, *dq = out + oQ;
	__global const float *w = fwd + oW, *T = fwd + oT;
	int b = get_group_id(0), l = get_local_id(0);
	__global const float *gb = g + (size_t)b * D, *wr = w + (size_t)b * S;
	__global float *dwr = dw + (size_t)b * S, *dsr = ds + (size_t)b * S;
	for (int i = 0; i < S; i++) {
		__global const float *x = H + ((size_t)b * S + i) * D;
		float acc = 0.0f;
		for (int d = l; d < D; d += WG) acc += x[d] * gb[d];
		acc = red_sum(red, acc);
		if (l == 0) dwr[i] = cc * acc;
	}
	barrier(CLK_GLOBAL_MEM_FENCE);
	float dot = 0.0f;
	for (int i = l; i < S; i += WG) dot += wr[i] * dwr[i];
	dot = red_sum(red, dot);
	for (int i = l; i < S; i += WG) dsr[i] = wr[i] * (dwr[i] - dot);
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
			for (int i = 0; i < S; i++) {
				size_t j = ((size_t)b * S + i) * K + k;
				float wi = sc * dsr[i];
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
