// L2 normalisation, a learned scale and a full dot product
// (internal/device/backend_rows.go; internal/backend/rows.go has the equations). Rows of D
// values, one work-group per row (red_sum from _reduce.cl).

// y = x / max(‖x‖, ε) per row.
__kernel void l2_norm(__global float *y, __global const float *x, const float eps, const int rows, const int D) {
	__local float red[WG];
	int r = get_group_id(0), l = get_local_id(0);
	__global const float *xr = x + (size_t)r * D;
	float ss = 0.0f;
	for (int i = l; i < D; i += WG) ss += xr[i] * xr[i];
	float n = fmax(sqrt(red_sum(red, ss)), eps);
	for (int i = l; i < D; i += WG) y[(size_t)r * D + i] = xr[i] / n;
}

// ∂x = (g − y (y·g)) / n where n = ‖x‖ ≥ ε, else g / ε.
__kernel void l2_grad(__global float *dx, __global const float *x, __global const float *g, const float eps, const int rows,
	const int D) {
	__local float red[WG];
	int r = get_group_id(0), l = get_local_id(0);
	__global const float *xr = x + (size_t)r * D, *gr = g + (size_t)r * D;
	float ss = 0.0f, xg = 0.0f;
	for (int i = l; i < D; i += WG) {
		ss += xr[i] * xr[i];
		xg += xr[i] * gr[i];
	}
	float n = sqrt(red_sum(red, ss));
	xg = red_sum(red, xg);
	for (int i = l; i < D; i += WG) {
		dx[(size_t)r * D + i] = n < eps ? gr[i] / eps : (gr[i] - xr[i] / n * (xg / n)) / n;
	}
}

// y = γ[0]·x
__kernel void scale_by(__global float *y, __global const float *x, __global const float *gamma, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	y[i] = gamma[0] * x[i];
}

// out[0] = Σ a ⊙ b, in one work-group.
__kernel void dot_all(__global float *out, __global const float *a, __global const float *b, const int n) {
	__local float red[WG];
	float s = 0.0f;
	for (int i = get_local_id(0); i < n; i += WG) s += a[i] * b[i];
	s = red_sum(red, s);
	if (get_local_id(0) == 0) out[0] = s;
}

// MaskFill: y = s where m > 0.5, else the fill value.
__kernel void mask_fill(__global float *y, __global const float *s, __global const float *m, const float fill, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	y[i] = m[i] > 0.5f ? s[i] : fill;
}
