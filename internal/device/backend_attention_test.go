package device

import (
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
)

// TestBackendOuter: Outer with two heads, written and added into a buffer
// (the host machine's fused sum of Outers; outer_heads_acc on the device),
// on the cpu backend and the OpenCL one. B = 1, S = 2, D = 4, h = 2 (head
// k(d) = d/2), c = 0.5, w [2,2] = [[1, 2], [3, −1]], v = [1, 2, 3, 4]:
//
//	y[i,d] = (c·w[k(d),i])·v[d]
//	i = 0: 0.5·1 = 0.5 → 0.5, 1;   0.5·3 = 1.5 → 4.5, 6
//	i = 1: 0.5·2 = 1   → 1, 2;     0.5·−1 = −0.5 → −1.5, −2
//
// and added to y₀[i,d] = 10i + d: [0.5, 2, 6.5, 9, 11, 13, 10.5, 11]
// (every value exact in float32).
func TestBackendOuter(t *testing.T) {
	w, v := []float32{1, 2, 3, -1}, []float32{1, 2, 3, 4}
	y0 := []float32{0, 1, 2, 3, 10, 11, 12, 13}
	want := map[bool][]float32{
		false: {0.5, 1, 4.5, 6, 1, 2, -1.5, -2},
		true:  {0.5, 2, 6.5, 9, 11, 13, 10.5, 11},
	}
	o := testOpenCL(t)
	for _, be := range []backend.Backend{cpu.New(), o.Backend()} {
		for _, acc := range []bool{false, true} {
			// buf puts values on the backend; read brings them back.
			buf := func(x []float32) backend.Buf {
				if be.Host() {
					return backend.Host(append([]float32(nil), x...))
				}
				b, err := o.Alloc(len(x))
				if err == nil {
					err = o.Write(b, x)
				}
				if err != nil {
					t.Fatal(err)
				}
				return backend.Buf{Mem: b}
			}
			y := buf(y0)
			if err := be.Outer(y, buf(w), buf(v), 1, 2, 4, 2, 0.5, acc); err != nil {
				t.Fatalf("%s: %v", be.Name(), err)
			}
			got := y.F32
			if !be.Host() {
				got = make([]float32, len(y0))
				if err := o.Read(got, y.Mem.(Buffer)); err != nil {
					t.Fatal(err)
				}
			}
			for i := range got {
				if got[i] != want[acc][i] {
					t.Errorf("%s acc=%v: y = %v, want %v", be.Name(), acc, got, want[acc])
					break
				}
			}
		}
	}
}
