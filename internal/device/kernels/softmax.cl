// Row kernels: one work-group of WG work-items (a power of two, defined
// when the program is built) per row. Work-item l visits columns
// l, l + WG, …; the partial results meet in a tree in local memory, so a
// sum over a row adds log2(WG) + cols/WG terms in sequence, not cols.
// The global size is exactly rows·WG, so these kernels have no early
// return: pocl 3.1 crashes on a return ahead of a barrier, even one that
// a whole work-group takes.

// y_i = m_i·e^(x_i − M) / Σ_j m_j·e^(x_j − M), M the row's maximum over
// kept keys (m > 0.5); masked keys get 0, a row with no key all zeros.
__kernel void masked_softmax(__global float *y, __global const float *x, __global const float *mask,
                             const int rows, const int cols) {
	__local float red[WG];
	size_t r = get_group_id(0);
	masked_softmax_row(red, x + r * cols, mask + r * cols, y + r * cols, cols);
}

// dx_i = y_i·(g_i − Σ_j y_j·g_j) per row.
__kernel void softmax_grad(__global float *dx, __global const float *y, __global const float *g,
                           const int rows, const int cols) {
	__local float red[WG];
	int r = get_group_id(0), l = get_local_id(0);
	__global const float *yr = y + (size_t)r * cols, *gr = g + (size_t)r * cols;
	__global float *dr = dx + (size_t)r * cols;
	float d = 0.0f;
	for (int i = l; i < cols; i += WG) d += yr[i] * gr[i];
	d = red_sum(red, d);
	for (int i = l; i < cols; i += WG) dr[i] = yr[i] * (gr[i] - d);
}
