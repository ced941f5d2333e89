package backend

// Mat is a row-major matrix in a buffer: its first value at Off, Ld values
// from one row to the next; T makes the product read its transpose.
type Mat struct {
	Buf Buf
	Off int
	Ld  int
	T   bool
	// Const marks a weight: its values stay the same until the machine's
	// next run (Run, not RunAgain), so a backend may prepare it once (pack
	// or transpose it) for every product that reads it in the run.
	Const bool
}

// Gemm is the matrix product.
type Gemm interface {
	// Gemm sets C = α·op(A)·op(B) + β·C; op(A) is m×k, op(B) k×n, C m×n
	// (C.T must be false). A backend may take a product with β = 1 as an
	// accumulation into C.
	Gemm(m, n, k int, alpha float64, a, b Mat, beta float64, c Mat) error
}
