package device

import "fmt"

// fits checks that each buffer holds at least n values.
func fits(kernel string, n int, bs ...Buffer) error {
	if n < 1 {
		return fmt.Errorf("device: %s: size %d (want ≥ 1)", kernel, n)
	}
	for i, b := range bs {
		if b == nil {
			return fmt.Errorf("device: %s: buffer %d is nil", kernel, i)
		}
		if b.Len() < n {
			return fmt.Errorf("device: %s: buffer %d holds %d values, the kernel needs %d", kernel, i, b.Len(), n)
		}
	}
	return nil
}

// fitsRows checks a rows × cols kernel's buffers.
func fitsRows(kernel string, rows, cols int, bs ...Buffer) error {
	if rows < 1 || cols < 1 {
		return fmt.Errorf("device: %s: %d rows × %d columns (want ≥ 1 each)", kernel, rows, cols)
	}
	return fits(kernel, rows*cols, bs...)
}

// fitsGemm checks Sgemm's sizes: op(A) m×k, op(B) k×n, C m×n, row-major.
func fitsGemm(transA, transB bool, m, n, k int, a Buffer, lda int, b Buffer, ldb int, c Buffer, ldc int) error {
	if m < 1 || n < 1 || k < 1 {
		return fmt.Errorf("device: Sgemm: m, n, k = %d, %d, %d (want ≥ 1 each)", m, n, k)
	}
	ar, ac := m, k // A as stored: ar rows of ac values
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	for _, x := range []struct {
		name       string
		buf        Buffer
		rows, cols int
		ld         int
	}{{"A", a, ar, ac, lda}, {"B", b, br, bc, ldb}, {"C", c, m, n, ldc}} {
		if x.buf == nil {
			return fmt.Errorf("device: Sgemm: %s is nil", x.name)
		}
		if x.ld < x.cols {
			return fmt.Errorf("device: Sgemm: %s is %d×%d, its leading dimension %d < %d", x.name, x.rows, x.cols, x.ld, x.cols)
		}
		if need := (x.rows-1)*x.ld + x.cols; x.buf.Len() < need {
			return fmt.Errorf("device: Sgemm: %s is %d×%d with leading dimension %d: needs %d values, its buffer holds %d",
				x.name, x.rows, x.cols, x.ld, need, x.buf.Len())
		}
	}
	return nil
}
