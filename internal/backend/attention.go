package backend

// Attention is the attention scorers' family (internal/gx's ops_bmv.go,
// ops_heads.go, ops_additive.go and ops_bias.go have the ops): the batched
// matrix–vector products with h heads, the additive score's parts, and the
// bias and its row sums. Each sets every value of its output y (a sum
// starts from zero), reads its operands only, and sums in index order.
//
// For the heads, X [B,S,D], v [B,D] and w [B·h,S] split their last axis
// into h blocks of a = D/h, k(d) = d/a the head of column d; h = 1 is the
// plain product.
type Attention interface {
	// BiasAdd sets y[r,j] = x[r,j] + b[j] for x [rows,n].
	BiasAdd(y, x, b Buf, rows, n int) error
	// SumRows sets y[j] = Σ_r x[r,j] for x [rows,n]; with acc it adds the
	// sums into y.
	SumRows(y, x Buf, rows, n int, acc bool) error
	// SumMid sets y[b,j] = Σ_i x[b,i,j] for x [B,S,n].
	SumMid(y, x Buf, B, S, n int) error
	// MatVec sets y = op(A)·x, op(A) m×n (A n×m when a.T), x [n], y [m];
	// with acc it adds op(A)·x into y.
	MatVec(m, n int, a Mat, x, y Buf, acc bool) error
	// Bmv sets y[b·h+k,i] = c · Σ_{d: k(d)=k} X[b,i,d] · v[b,d]   [B·h,S].
	Bmv(y, X, v Buf, B, S, D, h int, c float64) error
	// WSum sets y[b,d] = Σ_i (c·w[b·h+k(d),i]) · X[b,i,d]   [B,D], a zero
	// weight skipped (a masked key's X is never read).
	WSum(y, w, X Buf, B, S, D, h int, c float64) error
	// Outer sets y[b,i,d] = (c·w[b·h+k(d),i]) · v[b,d]   [B,S,D]; with acc
	// it adds that into y (the product rounded, then the sum).
	Outer(y, w, v Buf, B, S, D, h int, c float64, acc bool) error
	// GroupSum sets y[b,i] = Σ_k c·x[b·h+k,i], k ascending, for x [B·h,S].
	GroupSum(y, x Buf, B, S, h int, c float64) error
	// RepeatRows sets y[b·h+k,i] = c·x[b,i] for x [B,S].
	RepeatRows(y, x Buf, B, S, h int, c float64) error
	// AddTanh sets y[b,i,j] = tanh((P[b,i,j] + u[b,j]) + c[j]) for P [B,S,A].
	AddTanh(y, P, u, c Buf, B, S, A int) error
	// AdditiveDelta sets y[r,j] = (g[r]·v[j]) · (1 − T[r,j]²) for T [N,A];
	// with acc it adds that into y.
	AdditiveDelta(y, T, v, g Buf, N, A int, acc bool) error
}

// FusedAttention is the ability of a backend (the OpenCL one) to run one
// decoder position's attention chain — the score, its masked softmax and
// the context — in one launch, and its gradient in one more: internal/gx's
// device machine groups a chain's steps into one (exec_device_attend.go).
// Each computes what the unfused ops compute, a sum along a row possibly in
// another order. It is not part of Backend: the host runs the ops.
type FusedAttention interface {
	Attend(a Attend) error
	AttendBack(a AttendBack) error
}

// Attend is a chain forward for B batch rows of S keys: the scores Score
// [B,S], from the additive score when A > 0, the dot score when K > 0, or
// read as they are; then the weights W = the masked softmax of Score over
// Mask [B,S] (1 = present), and the context Ctx[b,d] = Σ_i (CC·W[b,i])·H[b,i,d]
// for H [B,S,D], a zero weight skipped.
type Attend struct {
	B, S, D        int
	Score, Mask, W Buf
	H, Ctx         Buf
	CC             float64
	A              int // additive: T = tanh(P + U + C) [B,S,A], Score = T·V
	P, U, C, V, T  Buf // P [B,S,A], U [B,A], C and V [A]
	K              int // dot: Score[b,i] = SC · Σ_k X[b,i,k]·Q[b,k]
	X, Q           Buf // X [B,S,K], Q [B,K]
	SC             float64
}

// AttendBack is a chain's gradient from the context's G [B,D]: the
// weights' DW[b,i] = CC·Σ_d H[b,i,d]·G[b,d] and the scores' DS[b,i] =
// W[b,i]·(DW[b,i] − Σ_j W[b,j]·DW[b,j]) always; then, where the buffer is
// set (Mem not nil), with Acc adding into it:
//
//	DH[b,i,d]    = (CC·W[b,i])·G[b,d]                      [B,S,D]
//	Delta[b,i,a] = (DS[b,i]·V[a])·(1 − T[b,i,a]²)          [B,S,A]  (additive)
//	DU[b,a]      = Σ_i Delta[b,i,a], not added into         [B,A]
//	DX[b,i,k]    = (SC·DS[b,i])·Q[b,k]                     [B,S,K]  (dot)
//	DQ[b,k]      = Σ_i (SC·DS[b,i])·X[b,i,k], not added into [B,K]
type AttendBack struct {
	B, S, D   int
	H, G, W   Buf
	CC        float64
	DW, DS    Buf
	DH        Buf
	DHAcc     bool
	A         int
	T, V      Buf
	Delta, DU Buf
	DeltaAcc  bool
	K         int
	X, Q      Buf
	SC        float64
	DX, DQ    Buf
	DXAcc     bool
}
