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

// FusedAttention is the ability of a backend to run one decoder
// position's attention — the score, its masked softmax and the context —
// as one operation, and its gradient as one more: internal/gx's Attention
// op and its backward (ops_attend.go), which a graph builder emits only
// for a backend that has this ability and declares it (Fuser:
// FuseAttention; FuseAttentionHeads for several heads;
// Graph.FusesAttention). Each part
// computes what the unfused ops compute; a backend sums in the order of
// its own unfused kernels where it can, so that the fused and the unfused
// chain differ by the order of a sum along a row at most (the cpu: not at
// all).
type FusedAttention interface {
	Attend(a Attend) error
	AttendBack(a AttendBack) error
	AttendSums(a AttendSums) error
}

// Attend is a chain forward for B batch rows of S keys: the scores s
// [B,S], from the additive score when A > 0, the dot score when K > 0, or
// read from Score; then the weights w = the masked softmax of s over Mask
// [B,S] (1 = present), and the context ctx[b,d] = Σ_i (CC·w[b,i])·H[b,i,d]
// for H [B,S,D], a zero weight skipped. Everything it computes goes into
// Out at the offsets of Layout.
//
// With Heads h > 1 (the dot score only; FuseAttentionHeads), K splits into h
// blocks of K/h, k(j) = j/(K/h) the head of column j, and the rows are
// batch-major, head-minor (Attention's Bmv):
//
//	s[b·h+k,i] = SC · Σ_{j: k(j)=k} X[b,i,j]·Q[b,j]          [B·h,S]
//	M[b·h+k,i] = Mask[b,i]                                  [B·h,S]
//	hw = the masked softmax of each row of s over M          [B·h,S]
//	w[b,i] = Σ_k (1/h)·hw[b·h+k,i], k ascending              [B,S]
//
// then the context from w.
type Attend struct {
	B, S, D int
	Mask, H Buf
	CC      float64
	A       int // additive: T = tanh(P + U + C) [B,S,A], s = T·V
	P, U    Buf // P [B,S,A], U [B,A]
	C, V    Buf // [A]
	K       int // dot: s[b,i] = SC · Σ_k X[b,i,k]·Q[b,k]
	X, Q    Buf // X [B,S,K], Q [B,K]
	SC      float64
	Heads   int // the dot score's heads; 0 or 1: one
	Score   Buf // neither: the scores [B,S], an operand
	Out     Buf // AttendLayout
	Align   int // each block of Out (and of AttendBack's) starts at a multiple of it; 0 or 1: packed
}

// AttendLayout is where Attend puts its values in Out, each a block of
// its own: the weights [B,S] at 0 (W, so that Out may be read as the
// weights: the values' gradient, an Outer, does), T [B,S,A] (additive)
// from T, the scores [B·h,S] (unless read from Score) from S, with h > 1
// heads the mask M and the heads' weights hw [B·h,S] from M and HW, and
// the context [B,D] from Ctx; N values in all. A block a kind has not is
// empty (its size 0). With Align > 1 each block starts at a multiple of
// it (a device's view alignment, Viewer: the graph reads the blocks as
// views), the gaps left unwritten.
type AttendLayout struct{ W, T, S, M, HW, Ctx, N int }

// Layout is a's AttendLayout.
func (a Attend) Layout() AttendLayout {
	nh, scores, heads, at := a.B*a.NHeads()*a.S, 0, 0, 0
	if a.A > 0 || a.K > 0 {
		scores = nh
	}
	if a.NHeads() > 1 {
		heads = nh
	}
	block := func(n int) int { off := at; at = a.alignUp(at + n); return off } // the next block, of n values
	var l AttendLayout
	l.W, l.T, l.S, l.M, l.HW, l.Ctx = block(a.B*a.S), block(a.B*a.S*a.A), block(scores), block(heads), block(heads), at
	l.N = l.Ctx + a.B*a.D
	return l
}

// alignUp is off rounded up to a multiple of Align.
func (a Attend) alignUp(off int) int {
	if a.Align <= 1 {
		return off
	}
	return (off + a.Align - 1) / a.Align * a.Align
}

// NHeads is the number of heads: Heads, or 1.
func (a Attend) NHeads() int { return max(1, a.Heads) }

// AttendBack is a chain's gradient from the context's G [B,D], for the
// forward F (its operands, and its Out holding w and T): the weights'
// ∂w[b,i] = CC·Σ_d H[b,i,d]·G[b,d] into DW (a working buffer [B,S]; with
// h > 1 heads [B,S] then the heads' weights' ∂hw[b·h+k,i] = (1/h)·∂w[b,i]
// [B·h,S], and ∂s, ∂X and ∂Q from hw and ∂hw per head, as Attention's
// Outer and WSum with h heads), then into Out at the offsets of Layout
//
//	∂s[b,i]      = w[b,i]·(∂w[b,i] − Σ_j w[b,j]·∂w[b,j])   [B·h,S]
//	∂P[b,i,a]    = (∂s[b,i]·V[a])·(1 − T[b,i,a]²)          [B,S,A]  (additive)
//	∂U[b,a]      = Σ_i ∂P[b,i,a]                           [B,A]
//	∂X[b,i,k]    = (SC·∂s[b,i])·Q[b,k]                     [B,S,K]  (dot)
//	∂Q[b,k]      = Σ_i (SC·∂s[b,i])·X[b,i,k], a zero skipped [B,K]
//
// The values' ∂H = (CC·w)⊗G and the score's key-side gradient (∂P or ∂X)
// are added into DH and Keys where they are set (a Len > 0): the sums of
// those gradients over the decoder's positions (internal/gx's fold.go),
// each value rounded, then added, ∂H first unless KeysFirst (the two may
// be one sum: the dot score's annotations), and the key-side block of Out
// then left unwritten; unset, ∂H is not computed (the graph's Outer) and
// the key-side gradient goes into Out. ∂C and ∂V, sums over the batch,
// are AttendSums'.
type AttendBack struct {
	F         Attend
	G, DW     Buf
	Out       Buf // AttendBackLayout
	DH, Keys  Buf
	KeysFirst bool
}

// AttendSums is the additive score's sums over the batch, from a chain's
// gradient: ∂V[a] = Σ_n T[n,a]·∂s[n] over the N = B·S rows of T [N,A] (at
// offset TOff of T) and ∂s [N] (at the start of DS), into DV (added into
// it, rounded then added, with DVAcc); where DC is set, also ∂C[a] +=
// Σ_b ∂U[b,a] over the B rows of ∂U [B,A] (at offset DUOff of DU), rows
// added in order as ColSums' acc does. Work [A] is a working buffer.
type AttendSums struct {
	N, A, B      int
	T            Buf
	TOff         int
	DS, DV, Work Buf
	DVAcc        bool
	DU           Buf
	DUOff        int
	DC           Buf
}

// AttendBackLayout is where AttendBack puts its values in Out: ∂s [B·h,S]
// at 0, the score's key-side gradient (∂P or ∂X) from Keys, its
// query-side one (∂U or ∂Q) from Query; N values in all; each block at a
// multiple of F.Align.
type AttendBackLayout struct{ Keys, Query, N int }

// Layout is a's AttendBackLayout.
func (a AttendBack) Layout() AttendBackLayout {
	f := a.F
	w := f.A + f.K // one of them is 0
	l := AttendBackLayout{Keys: f.alignUp(f.B * f.NHeads() * f.S)}
	l.Query = f.alignUp(l.Keys + f.B*f.S*w)
	l.N = l.Query + f.B*w
	return l
}
