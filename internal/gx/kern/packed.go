package kern

import (
	"math"
)

// A float32 product C = A·op(B) (+ C) for a B that stays the same across
// many products: a weight, constant within a run of a graph, read by every
// step of a sequence. B is packed once (PackB) into the layout the
// micro-kernel reads — for each block of kc rows of op(B), panels of nr
// columns, row after row — so each product only packs A, the small
// per-step operand (or, on the AVX2 kernel, reads it in place:
// inPlacePanels). The loops are the usual ones (Goto and van de Geijn,
// "Anatomy of high-performance matrix multiplication", 2008):
//
//	for each kc block of k:              C += A[:, kc block] · op(B)[kc block, :]
//	  for each mc block of rows of A:    pack A's block as mr-row strips, k-major
//	    for each nr panel of op(B):      (kc×nr floats: stays in L1)
//	      for each mr strip of the block:  C[mr×nr] += strip · panel  (micro-kernel)
//
// The micro-kernel, and with it the layout of the packed operands (strips
// of mr rows of A, panels of nr columns of op(B), blocks of kc rows), is
// the fastest this processor runs (packKernel). On AVX-512 it keeps the
// 8×32 block of C in 16 registers and runs 16 fused multiply-adds per k;
// on AVX2 with FMA, a 6×16 block in 12 (ymm) registers, 12 per k. Where a
// product has the shape of a decoder step (64 or 128 rows, thousands of
// columns), this skips the packing of B that OpenBLAS repeats on every
// call (BenchmarkGemmPacked; the figures, and why kc is 512 on AVX-512, in
// bench/README.md, "Design measurements").
// Every entry of C is one chain of fused multiply-adds over k in order (the
// next kc block starts from the sum so far, a float32 in C as in the
// registers): the same bits however a product's columns are split over
// threads, and on either kernel, whatever its block. (Not the bits of a Go
// loop s += a·b, which rounds after the product too.)
const (
	packMC = 192 // rows of A packed at a time: whole strips of every kernel
	maxMR  = 8   // the largest mr, nr and kc of the kernels
	maxNR  = 32
	maxKC  = 512
)

// packKernel is a micro-kernel, C[mr×nr] = (C if load, else 0) + strip ·
// panel for a strip of op(A) packed kk×mr (k-major) and a panel of op(B)
// packed kk×nr (row after row), and the layout it reads. (It runs through
// micro, which calls each kernel directly: through a function value, the
// edge block gemmPanels passes from its stack would escape to the heap.)
type packKernel struct {
	name       string // for BLAS(): "AVX-512", "AVX2", "Go"
	mr, nr, kc int
	fast       bool // faster than the BLAS's products
	inPlace    bool // reads op(A)'s whole strips in place, packing none
}

// kernGo is the micro-kernel in Go (microGo), in AVX-512's layout.
var kernGo = &packKernel{name: "Go", mr: 8, nr: 32, kc: 512}

// packK is the kernel PackB packs for (and so the one GemmPacked runs):
// the first of kernels(), the fastest this processor has.
var packK = kernels()[0]

// PackedFast reports whether GemmPacked runs an assembly micro-kernel
// (AVX-512, or AVX2 with FMA); without one, GemmPacked runs a plain Go
// one, correct but slower than any BLAS.
var PackedFast = packK.fast

// PackedKernel names GemmPacked's micro-kernel: "AVX-512", "AVX2" or "Go".
func PackedKernel() string { return packK.name }

// PackedB is op(B) [K, N] packed for GemmPacked.
type PackedB struct {
	K, N int
	k    *packKernel // the kernel whose layout data has
	data []float32
	ld   int // > 0: data is op(B) [K, N] itself, leading dimension ld (Gemm)
}

// Bytes is the memory the packed operand holds.
func (p *PackedB) Bytes() int64 { return int64(cap(p.data)) * 4 }

// PackedBytes is what PackB holds for op(B) [k, n]: n in panels of the
// kernel's width, each k rows deep.
func PackedBytes(k, n int) int64 { return int64((n+packK.nr-1)/packK.nr*packK.nr) * int64(k) * 4 }

// PackB packs op(B) [k, n] into p (reusing its memory): B is b with leading
// dimension ldb, [k, n] or, with tB, [n, k]. With Threads() > 1 the panels
// are packed side by side.
func PackB(p *PackedB, tB bool, k, n int, b []float32, ldb int) {
	nr := packK.nr
	np := (n + nr - 1) / nr
	p.K, p.N, p.k, p.ld = k, n, packK, 0
	if cap(p.data) < np*nr*k {
		p.data = make([]float32, np*nr*k)
	}
	p.data = p.data[:np*nr*k]
	t := min(int(threads.Load()), np)
	if t <= 1 || k*n < parallelFlops {
		p.pack(tB, b, ldb, 0, np)
		return
	}
	band := (np + t - 1) / t
	spread((np+band-1)/band, func(i int) { p.pack(tB, b, ldb, i*band, min(np, (i+1)*band)) })
}

// pack is PackB on panels [jp0, jp1) (a method, not a closure: one would
// cost PackB an allocation a call).
func (p *PackedB) pack(tB bool, b []float32, ldb, jp0, jp1 int) {
	k, n, nr, kc := p.K, p.N, p.k.nr, p.k.kc
	for k0 := 0; k0 < k; k0 += kc {
		kk := min(kc, k-k0)
		for jp := jp0; jp < jp1; jp++ {
			panel := p.panel(k0, kk, jp)[:kk*nr]
			cols := min(nr, n-jp*nr)
			if cols < nr {
				clear(panel)
			}
			if tB { // row j of B is column j of op(B): read along it
				for jj := 0; jj < cols; jj++ {
					src := b[(jp*nr+jj)*ldb+k0:][:kk]
					for l, v := range src {
						panel[l*nr+jj] = v
					}
				}
				continue
			}
			for l := 0; l < kk; l++ {
				copy(panel[l*nr:l*nr+cols], b[(k0+l)*ldb+jp*nr:])
			}
		}
	}
}

// panel returns the kk×nr panel jp of the block that starts at row k0.
func (p *PackedB) panel(k0, kk, jp int) []float32 {
	nr := p.k.nr
	np := (p.N + nr - 1) / nr
	return p.data[(k0*np+jp*kk)*nr:]
}

var aPacks keep[Scratch]

// inPlacePanels: a kernel with inPlace reads op(A), and in Gemm an
// untransposed op(B), in place in a product of at most 24 panels (384
// columns), where packing costs most: on AVX2, products of 13 to 384 rows
// by 45 to 384 columns (the anchor's) ran 6–49% faster with A in place,
// weight gradients 2–21% faster with B in place too (thread CPU time).
// Over more panels, A read once per panel at a stride of a power of two
// thrashes the caches a packed copy stays in (128×3072×1024 8% slower in
// place, 768×1024×1024 14%).
var inPlacePanels = 24

// bPacks holds the packed blocks of op(B) that Gemm packs on every call;
// bViews, those it reads in place.
var bPacks, bViews keep[PackedB]

// Gemm sets C = op(A)·op(B), or with acc C + op(A)·op(B), for op(A) [m, k]
// (A, or with tA Aᵀ for A [k, m]) and op(B) [k, n] (B, or with tB Bᵀ for B
// [n, k]), row-major with leading dimensions: GemmPacked for a B that
// changes from one product to the next (a weight's gradient Gᵀ·X, the
// products of the recurrence's backward pass), packing op(B) one kc block
// of rows at a time, so its scratch is at most kc×n values however long k
// is (on a kernel with inPlace, an untransposed op(B) of few panels is
// read in place, its last partial panel packed: inPlacePanels). The sums
// are GemmPacked's: each entry one chain of fused multiply-adds over k in
// order, continued from one block to the next, so the product is the same
// bits as GemmPacked's on the whole of op(B) packed, split over threads or
// not.
func Gemm(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, acc bool, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	p := bPacks.Get()
	defer bPacks.Put(p)
	if k == 0 {
		p.K, p.N, p.k, p.ld = 0, n, packK, 0
		gemmPacked(m, a, lda, tA, p, c, ldc, acc)
		return
	}
	if nr := packK.nr; packK.inPlace && !tB && n >= nr && n <= inPlacePanels*nr {
		// op(B)'s whole panels read in place; the last columns, if any,
		// packed below
		n0 := n / nr * nr
		v := bViews.Get()
		*v = PackedB{K: k, N: n0, k: packK, data: b, ld: ldb}
		gemmPacked(m, a, lda, tA, v, c, ldc, acc)
		v.data = nil
		bViews.Put(v)
		if n0 == n {
			return
		}
		n, b, c = n-n0, b[n0:], c[n0:]
	}
	for k0 := 0; k0 < k; k0 += packK.kc {
		kk := min(packK.kc, k-k0)
		bo, ao := k0*ldb, k0 // where op(B)'s and op(A)'s block start
		if tB {
			bo = k0
		}
		if tA {
			ao = k0 * lda
		}
		PackB(p, tB, kk, n, b[bo:], ldb)
		gemmPacked(m, a[ao:], lda, tA, p, c, ldc, acc || k0 > 0)
	}
}

// GemmPacked sets C = A·op(B), or with acc C + A·op(B) (the sum starting
// from C), for A [m, K] with
// leading dimension lda and op(B) packed in p; C is [m, N] with ldc. With
// Threads() > 1, a large product splits into bands on goroutines, of
// rows where there are many (each band packs its own rows of A), else of
// op(B)'s panels; every entry is computed as in one band: the same bits.
func GemmPacked(m int, a []float32, lda int, p *PackedB, c []float32, ldc int, acc bool) {
	gemmPacked(m, a, lda, false, p, c, ldc, acc)
}

// gemmPacked is GemmPacked for op(A) = A [m, K] or, with tA, Aᵀ for A
// [K, m] (leading dimension lda either way).
func gemmPacked(m int, a []float32, lda int, tA bool, p *PackedB, c []float32, ldc int, acc bool) {
	if m == 0 || p.N == 0 {
		return
	}
	mr, nr := p.k.mr, p.k.nr
	np := (p.N + nr - 1) / nr
	t := int(threads.Load())
	if t <= 1 || int64(m)*int64(p.N)*int64(p.K) < parallelFlops {
		gemmPanels(m, a, lda, tA, p, c, ldc, acc, 0, np)
		return
	}
	if m >= t*packMC {
		// many rows: bands of rows (whole strips), each packing only its
		// own rows of A against the one packed B (split by panels, every
		// band would pack all of A: 2688×2048 values twice per product)
		band := (m/t + mr - 1) / mr * mr
		spread((m+band-1)/band, func(i int) {
			i0 := i * band
			ao := i0 * lda
			if tA {
				ao = i0
			}
			gemmPanels(min(band, m-i0), a[ao:], lda, tA, p, c[i0*ldc:], ldc, acc, 0, np)
		})
		return
	}
	t = min(t, np)
	band := (np + t - 1) / t
	spread((np+band-1)/band, func(i int) {
		gemmPanels(m, a, lda, tA, p, c, ldc, acc, i*band, min(np, (i+1)*band))
	})
}

// gemmPanels is GemmPacked on op(B)'s panels [jp0, jp1).
func gemmPanels(m int, a []float32, lda int, tA bool, p *PackedB, c []float32, ldc int, acc bool, jp0, jp1 int) {
	k, n := p.K, p.N
	kn := p.k
	mr, nr := kn.mr, kn.nr
	if k == 0 {
		if !acc {
			for i := 0; i < m; i++ {
				clear(c[i*ldc+jp0*nr : i*ldc+min(n, jp1*nr)])
			}
		}
		return
	}
	s := aPacks.Get()
	defer aPacks.Put(s)
	ap := s.Get32(packMC * maxKC)
	var edge [maxMR * maxNR]float32
	for k0 := 0; k0 < k; k0 += kn.kc {
		kk := min(kn.kc, k-k0)
		load := acc || k0 > 0 // continue the sums in C
		for i0 := 0; i0 < m; i0 += packMC {
			mb := (min(packMC, m-i0) + mr - 1) / mr
			packed := 0 // strips [packed, mb) are packed, from ap[0]
			if kn.inPlace && jp1-jp0 <= inPlacePanels {
				packed = min(mb, (m-i0)/mr) // the whole ones are read in place
			}
			packA(ap, a, lda, tA, mr, i0+packed*mr, m, k0, kk, mb-packed)
			for jp := jp0; jp < jp1; jp++ {
				panel, ps := p.panel(k0, kk, jp), nr
				if p.ld > 0 {
					panel, ps = p.data[k0*p.ld+jp*nr:], p.ld
				}
				for ib := 0; ib < mb; ib++ {
					r0, c0 := i0+ib*mr, jp*nr
					var strip []float32
					rs, ks := 1, mr
					switch {
					case ib >= packed:
						strip = ap[(ib-packed)*mr*kk:]
					case tA: // rows r0… of op(A) are columns of A
						strip, ks = a[k0*lda+r0:], lda
					default:
						strip, rs, ks = a[r0*lda+k0:], lda, 1
					}
					if r0+mr <= m && c0+nr <= n {
						micro(kn, kk, strip, rs, ks, panel, ps, c[r0*ldc+c0:], ldc, load)
						continue
					}
					// an edge block: through a full-size block on the stack
					rows, cols := min(mr, m-r0), min(nr, n-c0)
					if load {
						for i := 0; i < rows; i++ {
							copy(edge[i*nr:i*nr+cols], c[(r0+i)*ldc+c0:])
						}
					}
					micro(kn, kk, strip, rs, ks, panel, ps, edge[:], nr, load)
					for i := 0; i < rows; i++ {
						copy(c[(r0+i)*ldc+c0:(r0+i)*ldc+c0+cols], edge[i*nr:])
					}
				}
			}
		}
	}
}

// packA packs rows [i0, i0+mr·mb) of op(A)'s columns [k0, k0+kk) as mb
// strips of kk×mr (k-major), rows past m as zeros. op(A) is A [m, K], or
// with tA Aᵀ for A [K, m], whose strips are mr consecutive values of a row
// at each step (AVX-512's 8 copied as 8 values: a call to memmove for each
// cost 5% of a step at hidden 512. Read in place by micro512, without
// packing, they ran 2–3% faster at hidden 512 and 2% slower at 1024: not
// kept there; the AVX2 kernel reads whole strips in place: inPlace).
func packA(ap, a []float32, lda int, tA bool, mr, i0, m, k0, kk, mb int) {
	if tA {
		for ib := 0; ib < mb; ib++ {
			r0 := i0 + ib*mr
			rows := min(mr, m-r0)
			strip := ap[ib*mr*kk : (ib+1)*mr*kk]
			if rows == 8 && mr == 8 { // 8 values a step, no call to memmove for each
				for l := 0; l < kk; l++ {
					s := strip[l*8 : l*8+8 : l*8+8]
					src := a[(k0+l)*lda+r0 : (k0+l)*lda+r0+8 : (k0+l)*lda+r0+8]
					s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7] = src[0], src[1], src[2], src[3], src[4], src[5], src[6], src[7]
				}
				continue
			}
			if rows == 6 && mr == 6 {
				for l := 0; l < kk; l++ {
					s := strip[l*6 : l*6+6 : l*6+6]
					src := a[(k0+l)*lda+r0 : (k0+l)*lda+r0+6 : (k0+l)*lda+r0+6]
					s[0], s[1], s[2], s[3], s[4], s[5] = src[0], src[1], src[2], src[3], src[4], src[5]
				}
				continue
			}
			for l := 0; l < kk; l++ {
				s := strip[l*mr : l*mr+mr : l*mr+mr]
				n := copy(s[:rows], a[(k0+l)*lda+r0:])
				clear(s[n:])
			}
		}
		return
	}
	var rows [maxMR][]float32
	for ib := 0; ib < mb; ib++ {
		for ii := range mr {
			if i := i0 + ib*mr + ii; i < m {
				rows[ii] = a[i*lda+k0:][:kk]
			} else {
				rows[ii] = nil
			}
		}
		strip := ap[ib*mr*kk : (ib+1)*mr*kk]
		if rows[mr-1] != nil && mr == 8 { // a full strip: 8 values per k, read along 8 rows
			r0, r1, r2, r3, r4, r5, r6, r7 := rows[0], rows[1], rows[2], rows[3], rows[4], rows[5], rows[6], rows[7]
			for l := 0; l < kk; l++ {
				s := strip[l*8 : l*8+8 : l*8+8]
				s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7] = r0[l], r1[l], r2[l], r3[l], r4[l], r5[l], r6[l], r7[l]
			}
			continue
		}
		if rows[mr-1] != nil && mr == 6 {
			r0, r1, r2, r3, r4, r5 := rows[0], rows[1], rows[2], rows[3], rows[4], rows[5]
			for l := 0; l < kk; l++ {
				s := strip[l*6 : l*6+6 : l*6+6]
				s[0], s[1], s[2], s[3], s[4], s[5] = r0[l], r1[l], r2[l], r3[l], r4[l], r5[l]
			}
			continue
		}
		for ii, row := range rows[:mr] {
			for l := 0; l < kk; l++ {
				var v float32
				if row != nil {
					v = row[l]
				}
				strip[l*mr+ii] = v
			}
		}
	}
}

// microGo is the micro-kernel in Go: C[mr×nr] = (C if load, else 0) +
// A[mr×kk] · B[kk×nr] (A's row i at step l at a[i·rs + l·ks], B's row l
// at panel[l·ps]), each entry's chain of multiply-adds over l in order
// (fused here through float64: a last bit may differ from the assembly
// kernels' where float64's rounding then float32's is not float32's alone:
// fma32 in packed_test.go).
func microGo(mr, nr, kk int, a []float32, rs, ks int, panel []float32, ps int, c []float32, ldc int, load bool) {
	var acc [maxMR * maxNR]float32
	if load {
		for i := 0; i < mr; i++ {
			copy(acc[i*nr:(i+1)*nr], c[i*ldc:])
		}
	}
	for l := 0; l < kk; l++ {
		b := panel[l*ps : l*ps+nr]
		for i := 0; i < mr; i++ {
			ai := a[l*ks+i*rs]
			row := acc[i*nr : (i+1)*nr]
			for j, bv := range b {
				row[j] = float32(math.FMA(float64(ai), float64(bv), float64(row[j])))
			}
		}
	}
	for i := 0; i < mr; i++ {
		copy(c[i*ldc:i*ldc+nr], acc[i*nr:])
	}
}
