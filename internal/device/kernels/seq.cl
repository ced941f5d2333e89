// Sequence plumbing and row sums (internal/gx/device_seq.go).

// A block copy: rows × cols values, row r of the source at sOff + r·sLd,
// of the destination at dOff + r·dLd.
__kernel void copy2d(__global float *dst, const int dOff, const int dLd, __global const float *src, const int sOff,
	const int sLd, const int rows, const int cols) {
	int i = get_global_id(0);
	if (i >= rows * cols) return;
	int r = i / cols, c = i % cols;
	dst[dOff + r * dLd + c] = src[sOff + r * sLd + c];
}

// A token id as the host reads it (internal/backend/cpu: gather.go, rows.go): x
// truncated toward zero, or −1 when that is not in [0, V) (NaN too).
// Comparing x before converting keeps the conversion defined.
int token_id(float x, int V) { return (x > -1.0f && x < (float)V) ? (int)x : -1; }

// Embed: out[n, :] = E[ids[n], :]. An id that is not a whole number in
// [0, V) gives a row of NaN (the host op's error; device_seq.go says why
// none arrives from seq2seq).
__kernel void embed(__global float *out, __global const float *E, __global const float *ids, const int V, const int D,
	const int N) {
	int i = get_global_id(0);
	if (i >= N * D) return;
	int n = i / D, d = i % D;
	int id = token_id(ids[n], V);
	out[i] = (id >= 0 && (float)id == ids[n]) ? E[(size_t)id * D + d] : NAN;
}

// EmbedGrad's lists, one work-item per position n of ids [N]: link[n] is
// the next position with the same id (−1 after the last), link[N + n] the
// id when n is its first position (else −1). An id out of [0, V) is in no
// list (the forward op has rejected it).
__kernel void embed_links(__global int *link, __global const float *ids, const int V, const int N) {
	int n = get_global_id(0);
	if (n >= N) return;
	int v = token_id(ids[n], V), next = -1, first = v;
	for (int m = n + 1; v >= 0 && next < 0 && m < N; m++) {
		if (token_id(ids[m], V) == v) next = m;
	}
	for (int m = 0; v >= 0 && first >= 0 && m < n; m++) {
		if (token_id(ids[m], V) == v) first = -1;
	}
	link[n] = next;
	link[N + n] = first;
}

// EmbedGrad: dE[v, d] = Σ_{n: ids[n] = v} g[n, d], one work-item per first
// position of an id and column, summing along the id's list in ascending n
// (the host's order; no two work-items write one entry). dE is zero-filled
// first: the rows of absent ids stay 0.
__kernel void embed_grad(__global float *dE, __global const float *g, __global const int *link, const int D, const int N) {
	int i = get_global_id(0);
	if (i >= N * D) return;
	int n = i / D, d = i % D, v = link[N + n];
	if (v < 0) return;
	float acc = 0.0f;
	for (int m = n; m >= 0; m = link[m]) acc += g[(size_t)m * D + d];
	dE[(size_t)v * D + d] = acc;
}

// SumRows: out[c] = Σ_r x[r, c] (the bias gradient), rows in order.
__kernel void sum_rows(__global float *out, __global const float *x, const int rows, const int cols) {
	int c = get_global_id(0);
	if (c >= cols) return;
	float acc = 0.0f;
	for (int r = 0; r < rows; r++) acc += x[r * cols + c];
	out[c] = acc;
}

// AddBias: out[r, c] = x[r, c] + b[c].
__kernel void add_bias(__global float *out, __global const float *x, __global const float *b, const int cols, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	out[i] = x[i] + b[i % cols];
}

// Im2Col: out[b, r, c] = x[b, src[r], c], 0 where src[r] < 0 (outside the
// image); src holds whole numbers.
__kernel void im2col(__global float *out, __global const float *x, __global const float *src, const int R, const int L,
	const int C, const int n) {
	int j = get_global_id(0);
	if (j >= n) return;
	int c = j % C, br = j / C, r = br % R, b = br / R;
	int i = (int)src[r];
	out[j] = i < 0 ? 0.0f : x[((size_t)b * L + i) * C + c];
}

// Col2Im: out[b, i, c] = Σ_{r: src[r] = i} g[b, r, c], the rows r of
// position i listed (ascending, the host's order) in rows[off[i] ..
// off[i+1]).
__kernel void col2im(__global float *out, __global const float *g, __global const float *off, __global const float *rows,
	const int R, const int L, const int C, const int n) {
	int j = get_global_id(0);
	if (j >= n) return;
	int c = j % C, bi = j / C, i = bi % L, b = bi / L;
	float acc = 0.0f;
	for (int k = (int)off[i]; k < (int)off[i + 1]; k++) acc += g[((size_t)b * R + (int)rows[k]) * C + c];
	out[j] = acc;
}
