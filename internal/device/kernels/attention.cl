// The Attention family (internal/device/backend_attention.go): the batched
// matrix–vector family with h heads (h = 1: the plain one), for X [B,S,D],
// y [B,D], w [B·h,S], a = D/h, k(d) = d / a, and the additive score's
// parts, and the heads' mean and mask repeat. One work-item per output
// value, summing in index order (the host's).

// out[b·h+k, i] = c · Σ_{d∈k} X[b,i,d] · y[b,d]
__kernel void bmv_heads(__global float *out, __global const float *X, __global const float *y, const float c, const int B,
	const int S, const int D, const int h) {
	int j = get_global_id(0);
	if (j >= B * h * S) return;
	int i = j % S, bk = j / S, k = bk % h, b = bk / h, a = D / h;
	__global const float *x = X + ((size_t)b * S + i) * D + k * a;
	__global const float *yb = y + (size_t)b * D + k * a;
	float acc = 0.0f;
	for (int d = 0; d < a; d++) acc += x[d] * yb[d];
	out[j] = c * acc;
}

// out[b, d] = Σ_i (c · w[b·h+k(d), i]) · X[b,i,d], a zero weight skipped
// (the host's wsum: a masked key's X is never read)
__kernel void wsum_heads(__global float *out, __global const float *w, __global const float *X, const float c, const int B,
	const int S, const int D, const int h) {
	int j = get_global_id(0);
	if (j >= B * D) return;
	int d = j % D, b = j / D, k = d / (D / h);
	__global const float *wr = w + ((size_t)b * h + k) * S;
	float acc = 0.0f;
	for (int i = 0; i < S; i++) {
		float wi = c * wr[i];
		if (wi != 0.0f) acc += wi * X[((size_t)b * S + i) * D + d];
	}
	out[j] = acc;
}

// out[b, i, d] = c · w[b·h+k(d), i] · y[b, d]
__kernel void outer_heads(__global float *out, __global const float *w, __global const float *y, const float c, const int B,
	const int S, const int D, const int h) {
	int j = get_global_id(0);
	if (j >= B * S * D) return;
	int d = j % D, bi = j / D, i = bi % S, b = bi / S, k = d / (D / h);
	out[j] = c * w[((size_t)b * h + k) * S + i] * y[(size_t)b * D + d];
}

// OuterAcc (the machine's fused sum of Outers): out[b, i, d] += (c · w[b·h+k(d), i]) · y[b, d]
__kernel void outer_heads_acc(__global float *out, __global const float *w, __global const float *y, const float c,
	const int B, const int S, const int D, const int h) {
	int j = get_global_id(0);
	if (j >= B * S * D) return;
	int d = j % D, bi = j / D, i = bi % S, b = bi / S, k = d / (D / h);
	float p = c * w[((size_t)b * h + k) * S + i] * y[(size_t)b * D + d]; // rounded, then added: no FMA across statements
	out[j] += p;
}

// T[b,i,a] = tanh(P[b,i,a] + u[b,a] + c[a])
__kernel void add_tanh(__global float *T, __global const float *P, __global const float *u, __global const float *c,
	const int S, const int A, const int n) {
	int j = get_global_id(0);
	if (j >= n) return;
	int a = j % A, b = j / (S * A);
	T[j] = tanh(P[j] + u[b * A + a] + c[a]);
}

// δ[n,a] = g[n] · v[a] · (1 − T[n,a]²)
__kernel void additive_delta(__global float *out, __global const float *T, __global const float *v, __global const float *g,
	const int A, const int n, const int acc) {
	int j = get_global_id(0);
	if (j >= n) return;
	float t = T[j];
	float d = g[j / A] * v[j % A] * (1.0f - t * t);
	out[j] = acc ? out[j] + d : d;
}

// out[b,a] = Σ_i x[b,i,a]
__kernel void sum_mid(__global float *out, __global const float *x, const int B, const int S, const int A) {
	int j = get_global_id(0);
	if (j >= B * A) return;
	int a = j % A, b = j / A;
	float acc = 0.0f;
	for (int i = 0; i < S; i++) acc += x[((size_t)b * S + i) * A + a];
	out[j] = acc;
}

// Σ_i δ[b,i,a] from δ's operands: out[b,a] = Σ_i g[b,i] · v[a] · (1 −
// T[b,i,a]²), i ascending (sum_mid of additive_delta's values, each
// computed as there)
__kernel void additive_delta_sum(__global float *out, __global const float *T, __global const float *v, __global const float *g,
	const int B, const int S, const int A) {
	int j = get_global_id(0);
	if (j >= B * A) return;
	int a = j % A, b = j / A;
	float va = v[a], acc = 0.0f;
	for (int i = 0; i < S; i++) {
		float t = T[((size_t)b * S + i) * A + a];
		acc += g[b * S + i] * va * (1.0f - t * t);
	}
	out[j] = acc;
}

// HeadMean (GroupSum): out[b,i] = Σ_k c · x[b·h+k, i], k ascending
__kernel void group_sum(__global float *out, __global const float *x, const float c, const int B, const int S, const int h) {
	int j = get_global_id(0);
	if (j >= B * S) return;
	int i = j % S, b = j / S;
	float acc = 0.0f;
	for (int k = 0; k < h; k++) acc += c * x[((size_t)b * h + k) * S + i];
	out[j] = acc;
}

// RepeatRows: out[b·h+k, i] = c · x[b, i]
__kernel void repeat_rows(__global float *out, __global const float *x, const float c, const int B, const int S, const int h) {
	int j = get_global_id(0);
	if (j >= B * h * S) return;
	int i = j % S, b = j / (S * h);
	out[j] = c * x[(size_t)b * S + i];
}

// y_i = Σ_j A[off + i·ld + j]·x_j (+ y_i when beta is 1) for the m rows of
// A: a row kernel, one work-group per row (no early return: _reduce.cl).
__kernel void matvec_rows(__global float *y, __global const float *A, __global const float *x,
                          const int off, const int ld, const int n, const float beta) {
	__local float red[WG];
	int r = get_group_id(0), l = get_local_id(0);
	__global const float *ar = A + off + (size_t)r * ld;
	float s = 0.0f;
	for (int j = l; j < n; j += WG) s += ar[j] * x[j];
	s = red_sum(red, s);
	if (l == 0) y[r] = beta == 0.0f ? s : y[r] + s;
}

// y_j = Σ_i A[off + i·ld + j]·x_i (+ y_j when beta is 1), Aᵀx for A of n
// rows: one work-item per output j < m, summing the rows in order; the
// work-items of a group read one row's adjacent values together.
__kernel void matvec_cols(__global float *y, __global const float *A, __global const float *x,
                          const int off, const int ld, const int n, const float beta, const int m) {
	int j = get_global_id(0);
	if (j >= m) return;
	float s = 0.0f;
	for (int i = 0; i < n; i++) s += A[off + (size_t)i * ld + j] * x[i];
	y[j] = beta == 0.0f ? s : y[j] + s;
}
