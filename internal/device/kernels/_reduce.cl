// Reductions shared by the row kernels (this file sorts first, so every
// kernels/*.cl file after it may use them): one work-group of WG
// work-items (a power of two, defined when the program is built).

// red_max and red_sum leave the group's maximum / sum of v in every
// work-item.
float red_max(__local float *red, float v) {
	int l = get_local_id(0);
	red[l] = v;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int s = WG / 2; s > 0; s >>= 1) {
		if (l < s) red[l] = fmax(red[l], red[l + s]);
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	float r = red[0];
	barrier(CLK_LOCAL_MEM_FENCE);
	return r;
}

float red_sum(__local float *red, float v) {
	int l = get_local_id(0);
	red[l] = v;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int s = WG / 2; s > 0; s >>= 1) {
		if (l < s) red[l] += red[l + s];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	float r = red[0];
	barrier(CLK_LOCAL_MEM_FENCE);
	return r;
}


// masked_softmax_row writes the masked softmax of one row of n scores x
// (mask m: a key is kept where m > 0.5) into y, the group's WG work-items
// visiting i = l, l + WG, …: y_i = m_i·e^(x_i − M) / Σ_j m_j·e^(x_j − M), M
// the maximum over kept keys; a row with no key kept all zeros. Every
// work-item of the group calls it (it reduces across them). The kernels
// masked_softmax and attend_* (one row per work-group) both run it.
void masked_softmax_row(__local float *red, __global const float *x, __global const float *m,
                        __global float *y, const int n) {
	int l = get_local_id(0);
	float mx = -INFINITY, kept = 0.0f;
	for (int i = l; i < n; i += WG) {
		if (m[i] > 0.5f) {
			mx = fmax(mx, x[i]);
			kept = 1.0f;
		}
	}
	mx = red_max(red, mx);
	kept = red_max(red, kept);
	float s = 0.0f;
	for (int i = l; i < n; i += WG) {
		float e = (kept > 0.0f && m[i] > 0.5f) ? exp(x[i] - mx) : 0.0f;
		y[i] = e;
		s += e;
	}
	s = red_sum(red, s);
	if (kept != 0.0f)
		for (int i = l; i < n; i += WG) y[i] /= s;
}
