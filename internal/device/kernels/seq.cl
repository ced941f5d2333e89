// Sequence plumbing and row sums (internal/device/backend_copy.go,
// backend_gather.go; internal/gx/device_seq.go).

// A block copy: rows × cols values, row r of the source at sOff + r·sLd,
// of the destination at dOff + r·dLd.
__kernel void copy2d(__global float *dst, const int dOff, const int dLd, __global const float *src, const int sOff,
	const int sLd, const int rows, const int cols) {
	int i = get_global_id(0);
	if (i >= rows * cols) return;
	int r = i / cols, c = i % cols;
	dst[dOff + r * dLd + c] = src[sOff + r * sLd + c];
}

// Stack: dst[off + t·n + i] = x_t[i] for the count ≤ 8 blocks x0…x7 (the
// unused ones are never read).
__kernel void stack8(__global float *dst, const int off, __global const float *x0, __global const float *x1,
	__global const float *x2, __global const float *x3, __global const float *x4, __global const float *x5,
	__global const float *x6, __global const float *x7, const int count, const int n) {
	int i = get_global_id(0);
	if (i >= count * n) return;
	int t = i / n, j = i % n;
	__global const float *x = t == 0 ? x0 : t == 1 ? x1 : t == 2 ? x2 : t == 3 ? x3 : t == 4 ? x4 : t == 5 ? x5 : t == 6 ? x6 : x7;
	dst[off + i] = x[j];
}

// A token id as the host reads it (internal/backend/cpu: gather.go, rows.go): x
// truncated toward zero, or −1 when that is not in [0, V) (NaN too).
// Comparing x before converting keeps the conversion defined.
int token_id(float x, int V) { return (x > -1.0f && x < (float)V) ? (int)x : -1; }

// Embed: out[n, :] = E[ids[n], :]. An id that is not a whole number in
// [0, V) gives a row of NaN (the host's error; internal/device/
// backend_gather.go says why none arrives from seq2seq).
__kernel void embed(__global float *out, __global const float *E, __global const float *ids, const int V, const int D,
	const int N) {
	int i = get_global_id(0);
	if (i >= N * D) return;
	int n = i / D, d = i % D;
	int id = token_id(ids[n], V);
	out[i] = (id >= 0 && (float)id == ids[n]) ? E[(size_t)id * D + d] : NAN;
}

// EmbedGrad: dE[v, d] = Σ_{n: ids[n] = v} g[n, d], one work-item per
// position n and column d: the work-item of an id's first position sums
// the id's rows in ascending n (the host's order; no two work-items write
// one entry), the others return; with add the sum is added into dE. An id
// out of [0, V) is skipped (the forward op has rejected it). O(N) id reads
// a work-item, one launch.
__kernel void embed_grad(__global float *dE, __global const float *g, __global const float *ids, const int V, const int D,
	const int N, const int add) {
	int i = get_global_id(0);
	if (i >= N * D) return;
	int n = i / D, d = i % D, v = token_id(ids[n], V);
	if (v < 0) return;
	for (int m = 0; m < n; m++) {
		if (token_id(ids[m], V) == v) return;
	}
	float acc = 0.0f;
	for (int m = n; m < N; m++) {
		if (token_id(ids[m], V) == v) acc += g[(size_t)m * D + d];
	}
	__global float *e = dE + (size_t)v * D + d;
	*e = add ? *e + acc : acc;
}

// AddBias: out[r, c] = x[r, c] + b[c].
__kernel void add_bias(__global float *out, __global const float *x, __global const float *b, const int cols, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	out[i] = x[i] + b[i % cols];
}

// The position row r = (o, ky, kx) of an image's im2col reads, −1 outside
// the image (backend.ConvGeom: an H×W grid, a K×K kernel, stride S, pad P,
// Wo output columns).
int conv_src(const int r, const int H, const int W, const int K, const int S, const int P, const int Wo) {
	int kx = r % K, ky = r / K % K, o = r / (K * K);
	int y = o / Wo * S - P + ky, x = o % Wo * S - P + kx;
	return (y < 0 || y >= H || x < 0 || x >= W) ? -1 : y * W + x;
}

// Im2Col: out[b, r, c] = x[b, conv_src(r), c], 0 outside the image; R rows
// an image.
__kernel void im2col(__global float *out, __global const float *x, const int H, const int W, const int K, const int S,
	const int P, const int Wo, const int R, const int C, const int n) {
	int j = get_global_id(0);
	if (j >= n) return;
	int c = j % C, br = j / C, r = br % R, b = br / R;
	int i = conv_src(r, H, W, K, S, P, Wo);
	out[j] = i < 0 ? 0.0f : x[((size_t)b * H * W + i) * C + c];
}

// Col2Im: out[b, i, c] = Σ_{r: conv_src(r) = i} g[b, r, c], in ascending r
// (the host's order): the windows (oy, ox) that read position (y, x) at
// (ky, kx) = (y + P − oy·S, x + P − ox·S) ascend as ky and kx descend.
__kernel void col2im(__global float *out, __global const float *g, const int H, const int W, const int K, const int S,
	const int P, const int Ho, const int Wo, const int C, const int n) {
	int j = get_global_id(0);
	if (j >= n) return;
	int c = j % C, bi = j / C, i = bi % (H * W), b = bi / (H * W);
	int y = i / W, x = i % W, R = Ho * Wo * K * K;
	float acc = 0.0f;
	for (int ky = K - 1; ky >= 0; ky--) {
		int ty = y + P - ky;
		if (ty < 0 || ty % S != 0 || ty / S >= Ho) continue;
		for (int kx = K - 1; kx >= 0; kx--) {
			int tx = x + P - kx;
			if (tx < 0 || tx % S != 0 || tx / S >= Wo) continue;
			acc += g[((size_t)b * R + ((ty / S * Wo + tx / S) * K + ky) * K + kx) * C + c];
		}
	}
	out[j] = acc;
}
