// Cross-entropy, log-softmax and argmax by rows (internal/device/backend_rows.go),
// one work-group per row as in softmax.cl (red_max and red_sum from
// _reduce.cl, token_id from seq.cl, which sort before this file).

// A row's maximum *mx of its n values z, and Σ_i e^{z_i − mx} (the host's
// logSumExp, internal/backend/cpu/rows.go: lse = mx + log of the sum).
float row_expsum(__local float *red, __global const float *z, const int n, float *mx) {
	int l = get_local_id(0);
	float m = -INFINITY;
	for (int i = l; i < n; i += WG) m = fmax(m, z[i]);
	m = red_max(red, m);
	float s = 0.0f;
	for (int i = l; i < n; i += WG) s += exp(z[i] - m);
	*mx = m;
	return red_sum(red, s);
}

// loss[b] = m_b · (lse(z_b) − z_b[y_b]), as m_b · ((mx − z_b[y_b]) + log s);
// 0 where m_b = 0; NaN for a target that is not in [0, V) once truncated
// (the host op's error).
__kernel void xent_rows(__global float *loss, __global const float *z, __global const float *y, __global const float *m,
	const int rows, const int V) {
	__local float red[WG];
	int b = get_group_id(0);
	__global const float *zr = z + (size_t)b * V;
	float mx, s = row_expsum(red, zr, V, &mx);
	if (get_local_id(0) != 0) return;
	if (m[b] == 0.0f) {
		loss[b] = 0.0f;
		return;
	}
	int t = token_id(y[b], V);
	loss[b] = t >= 0 ? m[b] * ((mx - zr[t]) + log(s)) : NAN;
}

// out[0] = c · Σ_b x[b], in one work-group.
__kernel void sum_scaled(__global float *out, __global const float *x, const float c, const int n) {
	__local float red[WG];
	float s = 0.0f;
	for (int i = get_local_id(0); i < n; i += WG) s += x[i];
	s = red_sum(red, s);
	if (get_local_id(0) == 0) out[0] = c * s;
}

// dz_b = k·(e^{z_b − mx} / s − onehot(y_b)), k = (c·g[0])·m_b as the host
// groups it; 0 where m_b = 0.
__kernel void xent_grad(__global float *dz, __global const float *z, __global const float *y, __global const float *m,
	__global const float *g, const float c, const int rows, const int V) {
	__local float red[WG];
	int b = get_group_id(0), l = get_local_id(0);
	__global const float *zr = z + (size_t)b * V;
	__global float *dr = dz + (size_t)b * V;
	float mx, s = row_expsum(red, zr, V, &mx);
	float k = (c * g[0]) * m[b];
	int t = token_id(y[b], V);
	for (int i = l; i < V; i += WG) {
		float v = k * (exp(zr[i] - mx) / s);
		if (i == t) v -= k;
		dr[i] = m[b] == 0.0f ? 0.0f : v;
	}
}

// out_b = (z_b − mx) − log s.
__kernel void log_softmax_rows(__global float *out, __global const float *z, const int rows, const int V) {
	__local float red[WG];
	int b = get_group_id(0), l = get_local_id(0);
	__global const float *zr = z + (size_t)b * V;
	float mx, s = row_expsum(red, zr, V, &mx);
	float ls = log(s);
	for (int i = l; i < V; i += WG) out[(size_t)b * V + i] = (zr[i] - mx) - ls;
}

// out[b] = the index of row b's largest entry, the first of equal ones;
// NaNs are passed over, except a NaN first entry, which wins (the host's
// scan compares each entry with the best so far).
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
	if (l == 0) out[b] = (first == (float)V || isnan(xr[0])) ? 0.0f : first;
}
