package kern

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// forKernels runs f once for each micro-kernel this processor has (the
// AVX-512 one, the AVX2 one, the Go one), PackB packing for it.
func forKernels(t *testing.T, f func(t *testing.T, kn *packKernel)) {
	defer func(k *packKernel) { packK = k }(packK)
	for _, kn := range kernels() {
		packK = kn
		t.Run(kn.name, func(t *testing.T) { f(t, kn) })
	}
}

// TestGemmPacked checks C = A·op(B) (+ C) against sums in float64 with
// Higham's bound (checkProduct), on each kernel. The shapes cover full 8×32
// and 6×16 blocks, edges in both directions, k across several kc = 512 (or
// 256) blocks, and leading dimensions wider than the matrices.
func TestGemmPacked(t *testing.T) { forKernels(t, testGemmPacked) }

func testGemmPacked(t *testing.T, _ *packKernel) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range [][3]int{{8, 32, 1}, {8, 32, 256}, {13, 45, 300}, {64, 384, 128}, {3, 1001, 17}, {200, 64, 513}, {17, 40, 1100}, {1, 1, 1}, {9, 33, 0}} {
		m, n, k := s[0], s[1], s[2]
		for _, tB := range []bool{false, true} {
			for _, acc := range []bool{false, true} {
				lda, ldb, ldc := k+3, n+5, n+7
				if tB {
					ldb = k + 5
				}
				a, b, c := randSlice(rng, m*lda), randSlice(rng, max(k, n)*ldb), randSlice(rng, m*ldc)
				bAt := func(l, j int) float32 {
					if tB {
						return b[j*ldb+l]
					}
					return b[l*ldb+j]
				}
				c0 := slices.Clone(c)
				var p PackedB
				PackB(&p, tB, k, n, b, ldb)
				GemmPacked(m, a, lda, &p, c, ldc, acc)
				aAt := func(i, l int) float32 { return a[i*lda+l] }
				checkProduct(t, fmt.Sprintf("%v tB=%v acc=%v", s, tB, acc), m, n, k, aAt, bAt, c0, c, ldc, acc)
			}
		}
	}
}

// TestGemmPackedThreads: split over goroutines, the product is the same bit
// for bit; and each entry is one chain of fused multiply-adds over k in
// order across the kc blocks (math.FMA's chain, to the last bit or so: Go's
// rounds through float64; bit for bit: TestGemmPackedBits), on each kernel.
func TestGemmPackedThreads(t *testing.T) { forKernels(t, testGemmPackedThreads) }

func testGemmPackedThreads(t *testing.T, kn *packKernel) {
	rng := rand.New(rand.NewPCG(3, 4))
	m, n, k := 70, 1001, 700
	a, b := randSlice(rng, m*k), randSlice(rng, k*n)
	var p PackedB
	PackB(&p, false, k, n, b, n)
	one, two := make([]float32, m*n), make([]float32, m*n)
	GemmPacked(m, a, k, &p, one, n, false)
	defer SetThreads(Threads())
	SetThreads(2)
	GemmPacked(m, a, k, &p, two, n, false)
	if !slices.Equal(one, two) {
		t.Fatal("two threads: not the one-thread product bit for bit")
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float32
			for l := 0; l < k; l++ {
				s = float32(math.FMA(float64(a[i*k+l]), float64(b[l*n+j]), float64(s)))
			}
			if d := math.Abs(float64(one[i*n+j] - s)); d > 0x1p-23*math.Abs(float64(s)) {
				t.Fatalf("c[%d,%d] = %v, the chain's sum %v", i, j, one[i*n+j], s)
			}
		}
	}
	mr, nr := kn.mr, kn.nr
	strip, panel := make([]float32, k*mr), make([]float32, k*nr)
	kk := min(k, kn.kc)
	packA(strip, a, k, false, mr, 0, m, 0, kk, 1)
	copy(panel, p.panel(0, kk, 0)[:kk*nr])
	for _, load := range []bool{false, true} {
		c1, c2 := randSlice(rng, mr*nr), make([]float32, mr*nr)
		copy(c2, c1)
		micro(kn, kk, strip, 1, mr, panel, nr, c1, nr, load)
		microGo(mr, nr, kk, strip, 1, mr, panel, nr, c2, nr, load)
		for i := range c1 {
			if d := math.Abs(float64(c1[i] - c2[i])); d > 0x1p-23*math.Abs(float64(c2[i])) {
				t.Fatalf("load=%v: the micro-kernels differ at %d: %v, %v", load, i, c1[i], c2[i])
			}
		}
	}
}

// TestGemmPackedBits: on each assembly kernel, every entry of C is the
// chain c ← fma32(a[i,l], b[l,j], c) over l in order from C (acc) or +0,
// bit for bit: so the AVX-512 and AVX2 kernels, whatever their blocks and
// kc, give the same bits. The shapes have edges of both kernels' blocks
// (rows not a multiple of 6 or 8, columns not of 16 or 32), k across kc
// blocks of both (256 and 512) and none, and, on two threads, bands of rows
// (400 rows) and of panels; each with op(A) packed and, on the AVX2 kernel,
// read in place (whole strips; the last, partial, packed).
func TestGemmPackedBits(t *testing.T) {
	ipDefault := inPlacePanels
	forKernels(t, func(t *testing.T, kn *packKernel) {
		if !kn.fast {
			t.Skip("the Go kernel rounds through float64 (microGo)")
		}
		rng := rand.New(rand.NewPCG(7, 8))
		defer SetThreads(Threads())
		for _, s := range [][3]int{{6, 16, 1}, {8, 32, 256}, {13, 45, 300}, {3, 1001, 17}, {200, 64, 1100}, {17, 40, 513}, {64, 384, 128}, {400, 40, 70}, {9, 33, 0}} {
			m, n, k := s[0], s[1], s[2]
			for _, tB := range []bool{false, true} {
				for _, acc := range []bool{false, true} {
					lda, ldb, ldc := k+3, n+5, n+7
					if tB {
						ldb = k + 5
					}
					a, b, c0 := randSlice(rng, m*lda), randSlice(rng, max(k, n)*ldb), randSlice(rng, m*ldc)
					want := slices.Clone(c0)
					for i := 0; i < m; i++ {
						for j := 0; j < n; j++ {
							var x float32
							if acc {
								x = c0[i*ldc+j]
							}
							for l := 0; l < k; l++ {
								bv := b[l*ldb+j]
								if tB {
									bv = b[j*ldb+l]
								}
								x = fma32(a[i*lda+l], bv, x)
							}
							want[i*ldc+j] = x
						}
					}
					var p PackedB
					PackB(&p, tB, k, n, b, ldb)
					for _, th := range []int{1, 2} {
						for _, ip := range []int{0, 1 << 30} { // A packed; in place (kernAVX2)
							SetThreads(th)
							inPlacePanels = ip
							c := slices.Clone(c0)
							GemmPacked(m, a, lda, &p, c, ldc, acc)
							inPlacePanels = ipDefault
							for i, v := range c {
								if math.Float32bits(v) != math.Float32bits(want[i]) {
									t.Fatalf("%v tB=%v acc=%v threads=%d inPlacePanels=%d: c[%d,%d] = %v, the fma chain's %v", s, tB, acc, th, ip, i/ldc, i%ldc, v, want[i])
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestGemmPackedAllocs: a product on one thread allocates nothing once
// its buffers are kept, edge blocks included (13×45: edges both ways on
// either kernel's block; the edge block stays on gemmPanels's stack), nor
// does Gemm, packing op(B) or not.
func TestGemmPackedAllocs(t *testing.T) {
	forKernels(t, func(t *testing.T, _ *packKernel) {
		defer SetThreads(Threads())
		SetThreads(1)
		m, n, k := 13, 45, 300
		rng := rand.New(rand.NewPCG(11, 12))
		a, b, c := randSlice(rng, m*k), randSlice(rng, k*n), make([]float32, m*n)
		var p PackedB
		PackB(&p, false, k, n, b, n)
		if allocs := testing.AllocsPerRun(10, func() { GemmPacked(m, a, k, &p, c, n, false) }); allocs != 0 {
			t.Fatalf("GemmPacked: %v allocations a call, want 0", allocs)
		}
		for _, ldb := range []int{n, k} { // B [k, n], in place on AVX2 (its last columns packed); Bᵀ, packed
			tB := ldb == k
			if allocs := testing.AllocsPerRun(10, func() { Gemm(true, tB, m, n, k, a, m, b, ldb, false, c, n) }); allocs != 0 {
				t.Fatalf("Gemm tB=%v: %v allocations a call, want 0", tB, allocs)
			}
		}
	})
}

// fma32 is float32's fused multiply-add, a·b + c rounded once to float32
// (to nearest, ties to even), as VFMADD231PS computes each lane:
//   - p = a·b is exact in float64: two 24-bit significands make at most 48
//     bits, and the exponents of float32 products (2⁻²⁹⁸ to 2²⁵⁶) are in
//     float64's range.
//   - s = p + c rounded to float64, and e = (p + c) − s exactly (Knuth's
//     TwoSum: exact barring overflow, subnormal sums being exact).
//   - x = p + c = s + e is rounded to float32 through rounding to odd: where
//     e ≠ 0, x lies strictly between s and its float64 neighbour on e's
//     side, and of the two the one whose last significand bit is odd is x
//     rounded to odd. Rounding to odd at 53 bits, then to nearest at 24, is
//     rounding to nearest at 24 once, as 53 ≥ 24 + 2 (Boldo and Melquiond,
//     "Emulation of FMA and correctly rounded sums: proved algorithms using
//     rounding to odd", IEEE Trans. Computers 57(4), 2008, Theorem 1).
//
// float32(math.FMA(a, b, c)) alone rounds to nearest twice and can miss
// (the case in TestFMA32).
func fma32(a, b, c float32) float32 {
	p, cc := float64(a)*float64(b), float64(c)
	s := p + cc
	bb := s - p
	e := (p - (s - bb)) + (cc - bb)
	if bits := math.Float64bits(s); e != 0 && bits&1 == 0 {
		if (e > 0) == (s > 0) { // away from zero: the next magnitude up
			bits++
		} else {
			bits--
		}
		s = math.Float64frombits(bits)
	}
	return float32(s)
}

// TestFMA32 checks fma32 against a·b + c computed exactly in math/big and
// rounded once to float32 (big.Float's Float32: to nearest, ties to
// even), on random operands of wide range and on one where rounding twice
// fails: a = 1 + 2⁻²³, b = −(1 − 2⁻²³)·2⁻²⁴, c = 1 + 2⁻²³, so a·b + c =
// 1 + 2⁻²⁴ + 2⁻⁷⁰ (a·b = −2⁻²⁴ + 2⁻⁷⁰), just above the midpoint of 1 and
// 1 + 2⁻²³: rounded once, 1 + 2⁻²³; to float64 first, 1 + 2⁻²⁴ (2⁻⁷⁰ is
// under half of float64's ulp there, 2⁻⁵³), a tie then rounded to even, 1.
func TestFMA32(t *testing.T) {
	exact := func(a, b, c float32) float32 {
		x := new(big.Float).SetPrec(2000).SetFloat64(float64(a))
		x.Mul(x, new(big.Float).SetFloat64(float64(b)))
		x.Add(x, new(big.Float).SetFloat64(float64(c)))
		f, _ := x.Float32()
		return f
	}
	a, b, c := float32(1+0x1p-23), float32(-(1-0x1p-23)*0x1p-24), float32(1+0x1p-23)
	if got := fma32(a, b, c); got != 1+0x1p-23 {
		t.Fatalf("fma32 of the double-rounding case = %v, want 1 + 2⁻²³", got)
	}
	if twice := float32(math.FMA(float64(a), float64(b), float64(c))); twice != 1 {
		t.Fatalf("math.FMA then float32 = %v: not the double rounding this case is for", twice)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	r := func() float32 {
		return float32((rng.Float64()*2 - 1) * math.Ldexp(1, rng.IntN(40)-20))
	}
	for range 200000 {
		a, b, c := r(), r(), r()
		if rng.IntN(4) == 0 { // c near −a·b: cancellation
			c = -float32(float64(a)*float64(b)) * float32(1+(rng.Float64()-0.5)*0x1p-20)
		}
		if got, want := fma32(a, b, c), exact(a, b, c); math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("fma32(%v, %v, %v) = %v, exactly rounded %v", a, b, c, got, want)
		}
	}
}

// TestGemm checks the general product against float64 sums with Higham's
// bound (as TestGemmPacked), for every orientation of A and B, with and
// without accumulating, k across several kc blocks and leading dimensions
// wider than the matrices; and that it is GemmPacked's product on the
// whole of op(B) packed, bit for bit (A transposed by hand where tA), on
// one thread and on two (777 rows: split into bands of rows, 392 and 385
// on AVX-512's 8-row strips, 390 and 387 on AVX2's 6; the others into
// bands of panels); on each kernel.
func TestGemm(t *testing.T) { forKernels(t, testGemm) }

func testGemm(t *testing.T, _ *packKernel) {
	rng := rand.New(rand.NewPCG(5, 6))
	defer SetThreads(Threads())
	for _, s := range [][3]int{{8, 32, 1}, {13, 45, 300}, {3, 1001, 17}, {200, 64, 1100}, {130, 70, 513}, {777, 45, 130}, {1, 1, 1}, {9, 33, 0}} {
		m, n, k := s[0], s[1], s[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				for _, acc := range []bool{false, true} {
					lda, ldb, ldc := k+3, n+5, n+7
					if tA {
						lda = m + 2
					}
					if tB {
						ldb = k + 5
					}
					a, b, c := randSlice(rng, max(k, m)*lda), randSlice(rng, max(k, n)*ldb), randSlice(rng, m*ldc)
					aAt := func(i, l int) float32 {
						if tA {
							return a[l*lda+i]
						}
						return a[i*lda+l]
					}
					bAt := func(l, j int) float32 {
						if tB {
							return b[j*ldb+l]
						}
						return b[l*ldb+j]
					}
					c0 := slices.Clone(c)
					SetThreads(1)
					Gemm(tA, tB, m, n, k, a, lda, b, ldb, acc, c, ldc)
					checkProduct(t, fmt.Sprintf("%v tA=%v tB=%v acc=%v", s, tA, tB, acc), m, n, k, aAt, bAt, c0, c, ldc, acc)
					// GemmPacked on op(A) written out and op(B) packed whole
					opA := make([]float32, m*k)
					for i := 0; i < m; i++ {
						for l := 0; l < k; l++ {
							opA[i*k+l] = aAt(i, l)
						}
					}
					var p PackedB
					PackB(&p, tB, k, n, b, ldb)
					want := slices.Clone(c0)
					GemmPacked(m, opA, k, &p, want, ldc, acc)
					if !slices.Equal(c, want) {
						t.Fatalf("%v tA=%v tB=%v acc=%v: not GemmPacked's bits", s, tA, tB, acc)
					}
					SetThreads(2)
					two := slices.Clone(c0)
					Gemm(tA, tB, m, n, k, a, lda, b, ldb, acc, two, ldc)
					if !slices.Equal(c, two) {
						t.Fatalf("%v tA=%v tB=%v acc=%v: two threads differ from one", s, tA, tB, acc)
					}
				}
			}
		}
	}
}

// checkProduct checks c = A·B (+ c0 with acc) for A [m, k], B [k, n] read
// through aAt, bAt, against float64 sums with Higham's bound ("Accuracy and
// Stability of Numerical Algorithms" (3.5)): a float32 dot product of
// length k errs by at most γ_k·Σ_l |a_l·b_l|, γ_k = k·u/(1 − k·u), u = 2⁻²⁴
// (plus one rounding of the sum with c0); and that c's columns past n
// (up to ldc) are c0's.
func checkProduct(t *testing.T, what string, m, n, k int, aAt, bAt func(int, int) float32, c0, c []float32, ldc int, acc bool) {
	t.Helper()
	u := math.Ldexp(1, -24)
	gamma := float64(k) * u / (1 - float64(k)*u)
	for i := 0; i < m; i++ {
		for j := 0; j < ldc; j++ {
			got := float64(c[i*ldc+j])
			if j >= n { // outside C: untouched
				if got != float64(c0[i*ldc+j]) {
					t.Fatalf("%s: c[%d,%d] written outside C", what, i, j)
				}
				continue
			}
			var want, mag float64
			for l := 0; l < k; l++ {
				x := float64(aAt(i, l)) * float64(bAt(l, j))
				want += x
				mag += math.Abs(x)
			}
			bound := gamma * mag
			if acc {
				want += float64(c0[i*ldc+j])
				bound += u * math.Abs(want)
			}
			if math.Abs(got-want) > bound {
				t.Fatalf("%s: c[%d,%d] = %v, want %v ± %.3g", what, i, j, got, want, bound)
			}
		}
	}
}

func randSlice(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.Float64()*2 - 1)
	}
	return x
}

// BenchmarkGemmPacked: the products of a decoder step, in GFLOP/s (figures
// measured with it, and OpenBLAS's on the same shapes: bench/README.md,
// "Design measurements").
func BenchmarkGemmPacked(b *testing.B) {
	for _, s := range [][3]int{{64, 384, 128}, {64, 128, 128}, {128, 3072, 1024}, {128, 1024, 3072}, {128, 1536, 512}, {2688, 1024, 1024}} {
		m, n, k := s[0], s[1], s[2]
		a, c := make([]float32, m*k), make([]float32, m*n)
		var p PackedB
		PackB(&p, true, k, n, make([]float32, n*k), k)
		b.Run(fmt.Sprint(m, "x", n, "x", k), func(b *testing.B) {
			for b.Loop() {
				GemmPacked(m, a, k, &p, c, n, false)
			}
			b.ReportMetric(float64(2*m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkGemm: weight gradients Gᵀ·X (op(A) = Aᵀ, B packed per call) at
// the anchor's sizes (bench-compare at hidden 128) and at hidden 512.
func BenchmarkGemm(b *testing.B) {
	for _, s := range [][3]int{{128, 128, 256}, {384, 128, 256}, {1536, 512, 640}} {
		m, n, k := s[0], s[1], s[2]
		a, bb, c := make([]float32, k*m), make([]float32, k*n), make([]float32, m*n)
		b.Run(fmt.Sprint(m, "x", n, "x", k), func(b *testing.B) {
			for b.Loop() {
				Gemm(true, false, m, n, k, a, m, bb, n, true, c, n)
			}
			b.ReportMetric(float64(2*m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkPackB: packing a 3072×1024 weight, as X·Wᵀ reads it (tB) and as
// G·W does.
func BenchmarkPackB(b *testing.B) {
	w := make([]float32, 3072*1024)
	for _, tB := range []bool{true, false} {
		var p PackedB
		b.Run(fmt.Sprint("tB=", tB), func(b *testing.B) {
			for b.Loop() {
				if tB {
					PackB(&p, true, 1024, 3072, w, 1024)
				} else {
					PackB(&p, false, 3072, 1024, w, 1024)
				}
			}
		})
	}
}
