// The GRU family (internal/device/backend_gru.go; internal/backend/gru.go
// and internal/gx's ops_gru.go and ops_gruseq.go have the equations).
// Gates are laid out [r | z | n | hn] per row.

float sigm(float x) { return 1.0f / (1.0f + exp(-x)); }

// GRUGates from xi = Σ_j x_j [B,3H] (summed beforehand), hh [B,3H], b, b_hn.
__kernel void gru_gates(__global float *out, __global const float *xi, __global const float *hh, __global const float *b,
	__global const float *bhn, const int B, const int H) {
	int j = get_global_id(0);
	if (j >= B * H) return;
	int r = j / H, i = j % H;
	__global const float *x = xi + (size_t)r * 3 * H, *h = hh + (size_t)r * 3 * H;
	__global float *o = out + (size_t)r * 4 * H;
	float rg = sigm(b[i] + h[i] + x[i]);
	float z = sigm(b[H + i] + h[H + i] + x[H + i]);
	float hn = h[2 * H + i] + bhn[i];
	o[i] = rg;
	o[H + i] = z;
	o[2 * H + i] = tanh(x[2 * H + i] + b[2 * H + i] + rg * hn);
	o[3 * H + i] = hn;
}

// gru_gates with two input projections, summed here as the host sums them
// (x1 + x2, rounded, then the gates' sums).
__kernel void gru_gates2(__global float *out, __global const float *x1, __global const float *x2, __global const float *hh,
	__global const float *b, __global const float *bhn, const int B, const int H) {
	int j = get_global_id(0);
	if (j >= B * H) return;
	int r = j / H, i = j % H;
	__global const float *xa = x1 + (size_t)r * 3 * H, *xb = x2 + (size_t)r * 3 * H, *h = hh + (size_t)r * 3 * H;
	__global float *o = out + (size_t)r * 4 * H;
	float x0 = xa[i] + xb[i], xz = xa[H + i] + xb[H + i], xn = xa[2 * H + i] + xb[2 * H + i];
	float rg = sigm(b[i] + h[i] + x0);
	float z = sigm(b[H + i] + h[H + i] + xz);
	float hn = h[2 * H + i] + bhn[i];
	o[i] = rg;
	o[H + i] = z;
	o[2 * H + i] = tanh(xn + b[2 * H + i] + rg * hn);
	o[3 * H + i] = hn;
}

// [δr | δz | δn] (dh = 0) or [δr | δz | g_hn + δn·r] (dh = 1) [B,3H].
__kernel void gru_gates_back(__global float *out, __global const float *gates, __global const float *g, const int B,
	const int H, const int dh) {
	int j = get_global_id(0);
	if (j >= B * H) return;
	int r = j / H, i = j % H;
	__global const float *x = gates + (size_t)r * 4 * H, *d = g + (size_t)r * 4 * H;
	__global float *o = out + (size_t)r * 3 * H;
	float n = x[2 * H + i], rg = x[i], z = x[H + i];
	float dn = d[2 * H + i] * (1.0f - n * n);
	o[i] = (d[i] + dn * x[3 * H + i]) * rg * (1.0f - rg);
	o[H + i] = d[H + i] * z * (1.0f - z);
	o[2 * H + i] = dh ? d[3 * H + i] + dn * rg : dn;
}

// h' = n + z·(h − n)
__kernel void gru_blend(__global float *out, __global const float *gates, __global const float *h, const int B, const int H) {
	int j = get_global_id(0);
	if (j >= B * H) return;
	int r = j / H, i = j % H;
	float z = gates[(size_t)r * 4 * H + H + i], n = gates[(size_t)r * 4 * H + 2 * H + i];
	out[j] = n + z * (h[j] - n);
}

// ∂gates = [0 | g·(h − n) | g·(1 − z) | 0]
__kernel void gru_blend_dg(__global float *out, __global const float *gates, __global const float *h, __global const float *g,
	const int B, const int H) {
	int j = get_global_id(0);
	if (j >= B * 4 * H) return;
	int r = j / (4 * H), c = j % (4 * H), i = c % H, q = c / H;
	__global const float *x = gates + (size_t)r * 4 * H;
	float gr = g[r * H + i];
	out[j] = q == 1 ? gr * (h[r * H + i] - x[2 * H + i]) : q == 2 ? gr * (1.0f - x[H + i]) : 0.0f;
}

// ∂h = g·z
__kernel void gru_blend_dh(__global float *out, __global const float *gates, __global const float *g, const int B, const int H,
	const int acc) {
	int j = get_global_id(0);
	if (j >= B * H) return;
	float d = g[j] * gates[(size_t)(j / H) * 4 * H + H + j % H];
	out[j] = acc ? out[j] + d : d;
}

// Column sums (the bias gradients: SumRows, ColSums): out[oOff + c] =
// Σ_r x[xOff + r·ld + c] for c < cols (added into out when add is 1). A
// work-group of WG work-items takes CT adjacent columns and L = WG/CT row
// lanes: work-item (lane, j) sums rows lane, lane + L, lane + 2L, … of
// column j in order (a group reads CT adjacent values a row, coalesced on
// a GPU), then the L lanes' sums of a column are added pairwise in a fixed
// tree. The summation order depends on WG only: the same sums every run.
#define CT (WG < 8 ? WG : 8)
__kernel void sum_rows_at(__global float *out, const int oOff, __global const float *x, const int xOff, const int ld,
	const int rows, const int cols, const int add) {
	__local float red[WG];
	const int l = get_local_id(0), j = l % CT, lane = l / CT, L = WG / CT;
	const int c = get_group_id(0) * CT + j;
	float acc = 0.0f;
	if (c < cols) {
		for (int r = lane; r < rows; r += L) acc += x[xOff + (size_t)r * ld + c];
	}
	red[l] = acc;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int s = L / 2; s > 0; s >>= 1) {
		if (lane < s) red[l] += red[l + s * CT];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (lane == 0 && c < cols) out[oOff + c] = add ? out[oOff + c] + red[j] : red[j];
}

// One position p of GRUSequence: from xw [S·B,3H] (Σ x_j W_jᵀ), hh = U
// h_prev [B,3H] and h_prev (row r at prev[pOff + r·pLd]), the packed
// [h_p | r | z | n | hn] of every row r at out[(r·S + p)·5H].
__kernel void gru_seq_step(__global float *out, __global const float *xw, __global const float *hh, __global const float *b,
	__global const float *bhn, __global const float *prev, const int pOff, const int pLd, __global const float *keep,
	const int B, const int S, const int H, const int p) {
	int j = get_global_id(0);
	if (j >= B * H) return;
	int r = j / H, i = j % H;
	__global const float *x = xw + ((size_t)p * B + r) * 3 * H, *h = hh + (size_t)r * 3 * H;
	__global float *o = out + ((size_t)r * S + p) * 5 * H;
	float rg = sigm(x[i] + b[i] + h[i]);
	float z = sigm(x[H + i] + b[H + i] + h[H + i]);
	float hn = h[2 * H + i] + bhn[i];
	float n = tanh(x[2 * H + i] + b[2 * H + i] + rg * hn);
	float hp = prev[pOff + (size_t)r * pLd + i];
	float hnew = n + z * (hp - n);
	o[i] = hp + keep[r * S + p] * (hnew - hp);
	o[H + i] = rg;
	o[2 * H + i] = z;
	o[3 * H + i] = n;
	o[4 * H + i] = hn;
}

// One position p of GRUSequence's backward pass (gruSeqBackRow): the state
// this position started from (position q's, or h0 when q < 0) is also
// kept in hprev; carry holds ∂h flowing back and is updated in place.
__kernel void gru_seq_back_step(__global const float *fwd, __global const float *gr, __global float *carry,
	__global const float *h0, __global float *hprev, __global float *dxi, __global float *dhh, __global const float *keep,
	const int B, const int S, const int H, const int p, const int q) {
	int j = get_global_id(0);
	if (j >= B * H) return;
	int r = j / H, i = j % H, W = 5 * H;
	__global const float *x = fwd + ((size_t)r * S + p) * W + H;
	float hp = q < 0 ? h0[r * H + i] : fwd[((size_t)r * S + q) * W + i];
	hprev[((size_t)p * B + r) * H + i] = hp;
	float rg = x[i], z = x[H + i], n = x[2 * H + i], hn = x[3 * H + i];
	float m = keep[r * S + p];
	float g = gr[((size_t)r * S + p) * H + i] + carry[j];
	float dnew = m * g;
	carry[j] = (g - dnew) + dnew * z;
	float dn = dnew * (1.0f - z) * (1.0f - n * n);
	float dr = dn * hn * rg * (1.0f - rg);
	float dz = dnew * (hp - n) * z * (1.0f - z);
	__global float *di = dxi + ((size_t)p * B + r) * 3 * H, *dh = dhh + ((size_t)p * B + r) * 3 * H;
	di[i] = dr;
	di[H + i] = dz;
	di[2 * H + i] = dn;
	dh[i] = dr;
	dh[H + i] = dz;
	dh[2 * H + i] = dn * rg;
}
