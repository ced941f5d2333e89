// Elementwise kernels: one work-item per value; the global size is rounded
// up to whole work-groups, so each kernel returns early past n.

__kernel void add(__global float *y, __global const float *a, __global const float *b, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	y[i] = a[i] + b[i];
}

__kernel void mul(__global float *y, __global const float *a, __global const float *b, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	y[i] = a[i] * b[i];
}

__kernel void tanh_fwd(__global float *y, __global const float *x, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	y[i] = tanh(x[i]);
}

// 1/(1 + e^−x), with e^−x overflowing to +inf for x < −88 giving 0.
__kernel void sigmoid_fwd(__global float *y, __global const float *x, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	y[i] = 1.0f / (1.0f + exp(-x[i]));
}

// dx = g ⊙ (1 − y²)
__kernel void tanh_grad(__global float *dx, __global const float *y, __global const float *g, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	float v = y[i];
	dx[i] = g[i] * (1.0f - v * v);
}

// dx = g ⊙ y ⊙ (1 − y)
__kernel void sigmoid_grad(__global float *dx, __global const float *y, __global const float *g, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	float v = y[i];
	dx[i] = g[i] * v * (1.0f - v);
}

// y = a − b
__kernel void sub(__global float *y, __global const float *a, __global const float *b, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	y[i] = a[i] - b[i];
}

// y = alpha·x (alpha = −1: the gradient of Sub; 1: a copy)
__kernel void scale(__global float *y, __global const float *x, const float alpha, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	y[i] = alpha * x[i];
}

// y = v
__kernel void fill(__global float *y, const float v, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	y[i] = v;
}

// y = max(x, 0)
__kernel void relu_fwd(__global float *y, __global const float *x, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

// dx = g ⊙ [y > 0]
__kernel void relu_grad(__global float *dx, __global const float *y, __global const float *g, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	dx[i] = y[i] > 0.0f ? g[i] : 0.0f;
}

// A dropout mask from a counter-based hash (no state between launches):
// u_i = the top 24 bits of h(i, seed) / 2²⁴ in [0, 1); y_i = 1/(1 − p)
// where u_i ≥ p (kept, scaled), else 0. h is two rounds of the
// lowbias32 mixer (Wellons) over i and the seed's two words.
uint mix32(uint x) {
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

__kernel void dropout_mask(__global float *y, const uint seed_lo, const uint seed_hi, const float p, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	uint h = mix32(mix32((uint)i ^ seed_lo) + seed_hi);
	float u = (float)(h >> 8) * (1.0f / 16777216.0f);
	y[i] = u >= p ? 1.0f / (1.0f - p) : 0.0f;
}
