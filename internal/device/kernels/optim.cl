// Optimizer updates and the global gradient norm, on float32 parameters,
// gradients and moments. The gradient is scaled by s (the clip factor)
// first; the equations are seq2seq's Optimizer's:
//
//	sgd:     θ ← θ − lr·g
//	rmsprop: v ← ρv + (1−ρ)g²;  θ ← θ − lr·g/(√v + ε)
//	adam:    m ← β₁m + (1−β₁)g;  v ← β₂v + (1−β₂)g²;  θ ← θ − step·m/(√v/√c₂ + ε),
//	         step = lr/c₁, c₁ = 1 − β₁ᵗ, c₂ = 1 − β₂ᵗ

__kernel void sgd_update(__global float *p, __global const float *g, const float s, const float lr, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	p[i] -= lr * (g[i] * s);
}

__kernel void rmsprop_update(__global float *p, __global const float *g, __global float *v, const float s, const float lr,
	const float rho, const float eps, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	float gi = g[i] * s;
	float vi = rho * v[i] + (1.0f - rho) * gi * gi;
	v[i] = vi;
	p[i] -= lr * gi / (sqrt(vi) + eps);
}

__kernel void adam_update(__global float *p, __global const float *g, __global float *m, __global float *v, const float s,
	const float b1, const float b2, const float step, const float sqrtc2, const float eps, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	float gi = g[i] * s;
	float mi = b1 * m[i] + (1.0f - b1) * gi;
	float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
	m[i] = mi;
	v[i] = vi;
	p[i] -= step * mi / (sqrt(vi) / sqrtc2 + eps);
}

// out[at] = Σ g[i]², one work-group of WG items (a fixed order of sums:
// the same result every run).
__kernel void sum_squares(__global float *out, const int at, __global const float *g, const int n) {
	__local float part[WG];
	int l = get_local_id(0);
	float acc = 0.0f;
	for (int i = l; i < n; i += WG) {
		float x = g[i];
		acc += x * x;
	}
	part[l] = acc;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int w = WG / 2; w > 0; w >>= 1) {
		if (l < w) part[l] += part[l + w];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (l == 0) out[at] = part[0];
}
