// Cross-entropy, log-softmax and argmax by rows (internal/gx/device_xent.go),
// one work-group per row as in softmax.cl (red_max and red_sum from
// _reduce.cl).

// The log-sum-exp of row z of n values, with the row's own maximum.
float row_lse(__local float *red, __global const float *z, const int n) {
	int l = get_local_id(0);
	float m = -INFINITY;
	for (int i = l; i < n; i += WG) m = fmax(m, z[i]);
	m = red_max(red, m);
	float s = 0.0f;
	for (int i = l; i < n; i += WG) s += exp(z[i] - m);
	s = red_sum(red, s);
	return m + log(s);
}

// loss[b] = m_b · (lse(z_b) − z_b[y_b]); 0 where m_b = 0; NaN for a target
// that is not a whole number in [0, V) (the host op's error).
__kernel void xent_rows(__global float *loss, __global const float *z, __global const float *y, __global const float *m,
	const int rows, const int V) {
	__local float red[WG];
	int b = get_group_id(0);
	__global const float *zr = z + (size_t)b * V;
	float lse = row_lse(red, zr, V);
	if (get_local_id(0) != 0) return;
	if (m[b] == 0.0f) {
		loss[b] = 0.0f;
		return;
	}
	int t = (int)y[b];
	loss[b] = (t >= 0 && t < V && (float)t == y[b]) ? m[b] * (lse - zr[t]) : NAN;
}

// out[0] = c · Σ_b x[b], in one work-group.
__kernel void sum_scaled(__global float *out, __global const float *x, const float c, const int n) {
	__local float red[WG];
	float s = 0.0f;
	for (int i = get_local_id(0); i < n; i += WG) s += x[i];
	s = red_sum(red, s);
	if (get_local_id(0) == 0) out[0] = c * s;
}

// dz_b = k·(softmax(z_b) − onehot(y_b)), k = c·m_b·g[0]; 0 where m_b = 0.
__kernel void xent_grad(__global float *dz, __global const float *z, __global const float *y, __global const float *m,
	__global const float *g, const float c, const int rows, const int V) {
	__local float red[WG];
	int b = get_group_id(0), l = get_local_id(0);
	__global const float *zr = z + (size_t)b * V;
	__global float *dr = dz + (size_t)b * V;
	float lse = row_lse(red, zr, V);
	float k = c * m[b] * g[0];
	int t = (int)y[b];
	for (int i = l; i < V; i += WG) dr[i] = m[b] == 0.0f ? 0.0f : k * exp(zr[i] - lse) - (i == t ? k : 0.0f);
}

// out_b = z_b − lse(z_b).
__kernel void log_softmax_rows(__global float *out, __global const float *z, const int rows, const int V) {
	__local float red[WG];
	int b = get_group_id(0), l = get_local_id(0);
	__global const float *zr = z + (size_t)b * V;
	float lse = row_lse(red, zr, V);
	for (int i = l; i < V; i += WG) out[(size_t)b * V + i] = zr[i] - lse;
}

// out[b] = the index of row b's largest entry, the first of equal ones.
__kernel void argmax_rows(__global float *out, __global const float *x, const int rows, const int V) {
	__local float red[WG];
	int b = get_group_id(0), l = get_local_id(0);
	__global const float *xr = x + (size_t)b * V;
	float m = -INFINITY;
	for (int i = l; i < V; i += WG) m = fmax(m, xr[i]);
	m = red_max(red, m);
	float first = (float)V;
	for (int i = l; i < V; i += WG) {
		if (xr[i] == m) first = fmin(first, (float)i);
	}
	first = -red_max(red, -first);
	if (l == 0) out[b] = first == (float)V ? 0.0f : first;
}
