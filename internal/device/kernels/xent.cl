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

// Σ_i z_i over a row of n values, for label smoothing's mean.
float row_sum(__local float *red, __global const float *z, const int n) {
	float s = 0.0f;
	for (int i = get_local_id(0); i < n; i += WG) s += z[i];
	return red_sum(red, s);
}

// loss[b] = m_b · (lse(z_b) − z_b[y_b]), as m_b · ((mx − z_b[y_b]) + log s);
// with smooth, ε = e[0] and m_b · ((1−ε)·(lse − z_b[y_b]) + ε·(lse − mean z_b));
// 0 where m_b = 0; NaN for a target that is not in [0, V) once truncated
// (the host op's error).
__kernel void xent_rows(__global float *loss, __global const float *z, __global const float *y, __global const float *m,
	__global const float *e, const int smooth, const int rows, const int V) {
	__local float red[WG];
	int b = get_group_id(0);
	__global const float *zr = z + (size_t)b * V;
	float mx, s = row_expsum(red, zr, V, &mx);
	float zs = smooth ? row_sum(red, zr, V) : 0.0f;
	if (get_local_id(0) != 0) return;
	if (m[b] == 0.0f) {
		loss[b] = 0.0f;
		return;
	}
	int t = token_id(y[b], V);
	if (t < 0) {
		loss[b] = NAN;
		return;
	}
	float nll = (mx - zr[t]) + log(s);
	if (smooth) {
		float eps = e[0];
		nll = (1.0f - eps) * nll + eps * ((mx + log(s)) - zs / (float)V);
	}
	loss[b] = m[b] * nll;
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
// groups it; with smooth, ε = e[0] and k·(e^{z_b − mx} / s − ε/V) −
// k·(1−ε)·onehot(y_b); 0 where m_b = 0.
__kernel void xent_grad(__global float *dz, __global const float *z, __global const float *y, __global const float *m,
	__global const float *e, const int smooth, __global const float *g, const float c, const int rows, const int V) {
	__local float red[WG];
	int b = get_group_id(0), l = get_local_id(0);
	__global const float *zr = z + (size_t)b * V;
	__global float *dr = dz + (size_t)b * V;
	float mx, s = row_expsum(red, zr, V, &mx);
	float k = (c * g[0]) * m[b];
	int t = token_id(y[b], V);
	float eps = smooth ? e[0] : 0.0f;
	for (int i = l; i < V; i += WG) {
		float v = k * (exp(zr[i] - mx) / s);
		if (smooth) { // the target's as k·(p − 1) + k·ε·(1 − 1/V), as the host does
			v = i == t ? (v - k) + k * eps * (1.0f - 1.0f / (float)V) : v - k * eps / (float)V;
		} else if (i == t) {
			v -= k;
		}
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
