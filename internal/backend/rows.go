package backend

// Rows is the family of computations along the last dimension: rows ×
// cols values, row r from r·cols, each row on its own (the softmaxes, the
// loss, the norms), and the whole-buffer reductions. Masks are 1 (kept) or
// 0 (masked): an entry > 0.5 counts as kept. Ids (targets, Argmax's
// output) are whole numbers in the buffer's dtype.
type Rows interface {
	// MaskedSoftmax sets, per row,
	//	y_i = m_i·e^(x_i − M) / Σ_j m_j·e^(x_j − M),  M = max{x_j : m_j kept}:
	// a masked key gets exactly 0, a row with no kept key all zeros.
	MaskedSoftmax(y, x, mask Buf, rows, cols int) error
	// SoftmaxGrad sets, per row, dx_i = y_i·(g_i − Σ_j y_j·g_j) from the
	// softmax's output y.
	SoftmaxGrad(dx, y, g Buf, rows, cols int) error
	// MaskFill sets y_i = x_i where mask_i is kept, else v (n values).
	MaskFill(y, x, mask Buf, v float64, n int) error
	// LogSoftmax sets, per row, y_i = z_i − M − log Σ_j e^(z_j − M), M the
	// row's maximum.
	LogSoftmax(y, z Buf, rows, cols int) error
	// SoftmaxXent is the masked softmax cross-entropy of logits z [rows,
	// cols] against target ids t [rows], weighted by m [rows], with label
	// smoothing ε = eps[0] (0 when eps holds no values):
	//	loss_b = m_b·((1−ε)·(lse_b − z_b[t_b]) + ε·(lse_b − mean_i z_bi))  (0 where m_b = 0)
	//	lse_b = M_b + log Σ_i e^(z_bi − M_b),  out[0] = c·Σ_b loss_b
	// — with ε the cross-entropy against (1−ε)·onehot(t_b) + ε/cols, as
	// PyTorch's F.cross_entropy(label_smoothing=ε) defines it. loss holds
	// rows values. A weighted row whose target is not in [0, cols) once
	// truncated is an error on a host backend (it names the target and
	// its row) and makes out NaN on a device.
	SoftmaxXent(out, loss, z, t, m, eps Buf, c float64, rows, cols int) error
	// SoftmaxXentGrad sets dz_b = (c·g[0])·m_b·(softmax(z_b) − (1−ε)·onehot(t_b) − ε/cols),
	// the gradient of SoftmaxXent's out scaled by g[0].
	SoftmaxXentGrad(dz, z, t, m, eps, g Buf, c float64, rows, cols int) error
	// Argmax sets out_r to the index of row r's largest value, the first of
	// equal ones.
	Argmax(out, x Buf, rows, cols int) error
	// L2Norm sets, per row, y = x / n, n = max(√(Σ_d x_d²), ε).
	L2Norm(y, x Buf, eps float64, rows, cols int) error
	// L2Grad is L2Norm's gradient: dx = (g − y·(y·g)) / n where n ≥ ε,
	// g / ε below it.
	L2Grad(dx, x, g Buf, eps float64, rows, cols int) error
	// ScaleBy sets y = γ·x, γ = gamma[0] (n values).
	ScaleBy(y, x, gamma Buf, n int) error
	// Dot sets out[0] = Σ_i a_i·b_i over n values.
	Dot(out, a, b Buf, n int) error
}
