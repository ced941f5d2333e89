package backend

// Copy is the family of block copies.
type Copy interface {
	// Copy2D copies a rows × cols block:
	//	dst[dOff + r·dLd + c] = src[sOff + r·sLd + c]   r < rows, c < cols
	// (a leading dimension is unused where rows is 1).
	Copy2D(dst Buf, dOff, dLd int, src Buf, sOff, sLd, rows, cols int) error
	// Stack copies the n values of each of xs one after another:
	//	dst[t·n + i] = xs[t][i]   t < len(xs), i < n
	Stack(dst Buf, xs []Buf, n int) error
}
