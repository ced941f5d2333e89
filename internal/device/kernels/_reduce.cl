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

