//go:build !amd64

package kern

const HasAVX, hasAVX2 = false, false

// exps32 sets out[i] = Exp32(x[i]).
func exps32(x, out []float32) {
	out = out[:len(x)]
	for i, v := range x {
		out[i] = Exp32(v)
	}
}

// tanhs32 sets out[i] = tanh32(x[i]).
func tanhs32(x, out []float32) {
	out = out[:len(x)]
	for i, v := range x {
		out[i] = tanh32(v)
	}
}

// sigmoids32 sets out[i] = sigmoid32(x[i]).
func sigmoids32(x, out []float32) {
	out = out[:len(x)]
	for i, v := range x {
		out[i] = sigmoid32(v)
	}
}

// addTanhs32 sets out[i] = tanh32((p[i] + u[i]) + c[i]).
func addTanhs32(p, u, c, out []float32) {
	u, c, out = u[:len(p)], c[:len(p)], out[:len(p)]
	for i, v := range p {
		out[i] = tanh32(v + u[i] + c[i])
	}
}

// Without AVX the generic kernels (fastmath.go) do every value in Go.

func axpy8(float32, []float32, []float32) int                          { return 0 }
func scale8(float32, []float32, []float32) int                         { return 0 }
func tanhDelta8(float32, []float32, []float32, []float32) int          { return 0 }
func adam4([]float32, []float32, []float64, []float64, AdamConsts) int { return 0 }
func add2s8([]float32, []float32, []float32) int                       { return 0 }
func add3s8([]float32, []float32, []float32, []float32) int            { return 0 }
func gruN8([]float32, []float32, []float32, []float32, []float32) int  { return 0 }
func blend8([]float32, []float32, []float32, []float32) int            { return 0 }
func blendCarry8(float32, []float32, []float32, []float32, []float32) int {
	return 0
}

// GRUGatesBackRow32 is one row of gruGatesBack (see there).
func GRUGatesBackRow32(x, d, o []float32, H int, dh bool) { GRUGatesBackRow(x, d, o, H, 0, dh) }

// GRUSeqBackRow32 is one row of gruSeqBack's position loop (see there).
func GRUSeqBackRow32(m float32, gh, c, x, hp, di, dh []float32, H int) {
	GRUSeqBackRow(m, gh, c, x, hp, di, dh, H, 0)
}

// sgemmBlock is never called without AVX (see Sgemm).
func sgemmBlock(k int, a []float32, ai, sia, sla int, b []float32, bj, ldb int, c []float32, ci, ldc int, acc bool) {
	panic("gx: sgemmBlock without AVX")
}
