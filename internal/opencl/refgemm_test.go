package opencl

// Sgemm, the reference the CLBlast tests check against, is
// C = α·op(A)·op(B) + β·C on row-major slices, where op(X) is X or its
// transpose (transA, transB); A is m×k, B is k×n and C is m×n after op,
// with leading dimensions lda, ldb and ldc. Each C[i][j] is summed in
// float64, Σ_p op(A)[i][p]·op(B)[p][j], then rounded once to float32.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	for i := range m {
		for j := range n {
			var sum float64
			for p := range k {
				var av, bv float32
				if transA {
					av = a[p*lda+i]
				} else {
					av = a[i*lda+p]
				}
				if transB {
					bv = b[j*ldb+p]
				} else {
					bv = b[p*ldb+j]
				}
				sum += float64(av) * float64(bv)
			}
			c[i*ldc+j] = float32(float64(alpha)*sum + float64(beta)*float64(c[i*ldc+j]))
		}
	}
}
