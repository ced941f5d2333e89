package backend

// GRU is the fused GRU step and sequence (PyTorch's nn.GRU form; the ops
// GRUGates, GRUBlend and GRUSequence of internal/gx have the derivations).
// A step's gates are laid out [r | z | n | hn] per row: for input
// projections x_j [B,3H] (gate rows r, z, n), the recurrent projection
// hh = U h [B,3H] and biases b [3H], b_hn [H],
//
//	xi = Σ_j x_j + b
//	r  = σ(xi_r + hh_r),  z = σ(xi_z + hh_z)
//	hn = hh_n + b_hn,     n = tanh(xi_n + r ⊙ hn)
//	h' = n + z ⊙ (h − n)
type GRU interface {
	// GRUGates sets gates [B,4H] = [r | z | n | hn] from the input
	// projections xs (each [B,3H]), hh [B,3H], b [3H] and bhn [H]. tmp
	// holds B·3H values a backend may sum the xs in (where len(xs) > 1).
	GRUGates(gates Buf, xs []Buf, hh, b, bhn, tmp Buf, B, H int) error
	// GRUGatesBack sets, from gates [B,4H] and their gradient
	// g = [g_r | g_z | g_n | g_hn] [B,4H], out [B,3H] to [δr | δz | δn]
	// (dh false: the input projections' gradient) or [δr | δz | g_hn + δn ⊙ r]
	// (dh true: the recurrent projection's):
	//	δn = g_n (1 − n²),  δr = (g_r + δn ⊙ hn) r (1 − r),  δz = g_z z (1 − z)
	GRUGatesBack(out, gates, g Buf, B, H int, dh bool) error
	// GRUBlend sets out [B,H] = n + z ⊙ (h − n) from gates [B,4H] and h [B,H].
	GRUBlend(out, gates, h Buf, B, H int) error
	// GRUBlendDG sets out [B,4H] = [0 | g ⊙ (h − n) | g ⊙ (1 − z) | 0], the
	// blend's gradient with respect to the gates, for g [B,H].
	GRUBlendDG(out, gates, h, g Buf, B, H int) error
	// GRUBlendDH sets out [B,H] = g ⊙ z, the blend's gradient with respect
	// to h; with acc it adds that into out.
	GRUBlendDH(out, gates, g Buf, B, H int, acc bool) error
	// ColSums sets y[yOff+c] = Σ_r x[xOff + r·ld + c] for c < cols, r <
	// rows, each column summed from 0 in row order; with acc it adds the
	// sums into y.
	ColSums(y Buf, yOff int, x Buf, xOff, ld, rows, cols int, acc bool) error

	// GRUSeq runs the recurrence of a GRU over S positions of B sequences
	// (internal/gx's GRUSequence), from position 0 to S−1 (S−1 to 0 when
	// reverse), each from the state h_prev of the one before (h0 [B,H]
	// first):
	//	hh  = U h_prev                       (u: U [3H,H], not transposed)
	//	h'  = the step above with xi = xw[p·B + b] + b
	//	h_p = h_prev + keep[b,p] (h' − h_prev)
	// xw [S·B,3H] holds Σ_j x_j W_jᵀ (time-major: row p·B+b), keep [B,S];
	// out [B,S,5H] gets [h_p | r | z | n | hn] of every (b, p). hh holds
	// B·3H values of working space; ut, where not empty, 3H·H a backend
	// may transpose U into (U.Const false).
	GRUSeq(out, xw Buf, u Mat, b, bhn, h0, keep Buf, B, S, H int, reverse bool, hh, ut Buf) error
	// GRUSeqBack runs GRUSeq's recurrence back from its last position
	// (from 0 when reverse), from fwd [B,S,5H] (GRUSeq's out) and the
	// states' gradient gr [B,S,H], and sets the pre-activation gradients
	// of the input projections dxi [S·B,3H] (= [δr | δz | δn]) and of the
	// recurrent projection dhh [S·B,3H] (= [δr | δz | δn ⊙ r]), the state
	// every position started from hprev [S·B,H], and carry [B,H] to ∂h0.
	// dhp holds B·H values of working space.
	GRUSeqBack(dxi, dhh, hprev, carry Buf, fwd, gr Buf, u Mat, h0, keep Buf, B, S, H int, reverse bool, dhp Buf) error
}
