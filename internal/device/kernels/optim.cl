// Optimizer updates and the global gradient norm, on float32 parameters,
// gradients and moments. The gradient is scaled by s (the clip factor)
// first; the equations are seq2seq's Optimizer's:
//
//	sgd:     θ ← θ − lr·g
//	rmsprop: v ← ρv + (1−ρ)g²;  θ ← θ − lr·g/(√v + ε)
//	adam:    m ← β₁m + (1−β₁)g;  v ← β₂v + (1−β₂)g²;  θ ← θ − step·m/(√v/√c₂ + ε),
//	         step = lr/c₁, c₁ = 1 − β₁ᵗ, c₂ = 1 − β₂ᵗ
//
// 1 − ρ, 1 − β₁ and 1 − β₂ come from the caller as it rounds them (omr,
// omb1, omb2), not computed here from float32(ρ): the cpu's update takes the
// same constants.
//
// Each rule is written once, on entry i (sgd_at, rmsprop_at, adam_at): the
// kernels here update one parameter; the ones Update generates
// (update.go) every parameter of a model in one launch.

void sgd_at(__global float *p, __global const float *g, int i, float s, float lr) {
	p[i] -= lr * (g[i] * s);
}

void rmsprop_at(__global float *p, __global const float *g, __global float *v, int i, float s, float lr, float rho, float omr, float eps) {
	float gi = g[i] * s;
	float vi = rho * v[i] + omr * gi * gi;
	v[i] = vi;
	p[i] -= lr * gi / (sqrt(vi) + eps);
}

void adam_at(__global float *p, __global const float *g, __global float *m, __global float *v, int i, float s, float b1, float omb1,
	float b2, float omb2, float step, float sqrtc2, float eps) {
	float gi = g[i] * s;
	float mi = b1 * m[i] + omb1 * gi;
	float vi = b2 * v[i] + omb2 * gi * gi;
	m[i] = mi;
	v[i] = vi;
	p[i] -= step * mi / (sqrt(vi) / sqrtc2 + eps);
}

__kernel void sgd_update(__global float *p, __global const float *g, const float s, const float lr, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	sgd_at(p, g, i, s, lr);
}

__kernel void rmsprop_update(__global float *p, __global const float *g, __global float *v, const float s, const float lr,
	const float rho, const float omr, const float eps, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	rmsprop_at(p, g, v, i, s, lr, rho, omr, eps);
}

__kernel void adam_update(__global float *p, __global const float *g, __global float *m, __global float *v, const float s,
	const float b1, const float omb1, const float b2, const float omb2, const float step, const float sqrtc2, const float eps, const int n) {
	int i = get_global_id(0);
	if (i >= n) return;
	adam_at(p, g, m, v, i, s, b1, omb1, b2, omb2, step, sqrtc2, eps);
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

// clip_finish ends Update's clip, in one work-group: the global norm is
// the square root of the n partial sums of squares (summed in a fixed
// order: the same bits every run) and the step's state goes to st:
//
//	st[0] = the loss (loss[0]), st[1] = the norm,
//	st[2] = the clip factor: clip/(norm + 1e-6) where clip > 0 and that is
//	        below 1, else 1 (seq2seq.ClipScale, PyTorch's clip_grad_norm_),
//	st[3] = 1 while every loss so far was finite, else 0 (the update
//	        kernels then change nothing, until the host sets it to 1 again).
__kernel void clip_finish(__global float *st, __global const float *parts, const int n, __global const float *loss,
	const float clip) {
	__local float red[WG];
	int l = get_local_id(0);
	float acc = 0.0f;
	for (int i = l; i < n; i += WG) acc += parts[i];
	float ss = red_sum(red, acc);
	if (l == 0) {
		float lo = loss[0], norm = sqrt(ss);
		st[0] = lo;
		st[1] = norm;
		float s = clip / (norm + 1e-6f);
		st[2] = clip > 0.0f && s < 1.0f ? s : 1.0f;
		st[3] = st[3] != 0.0f && isfinite(lo) ? 1.0f : 0.0f;
	}
}
