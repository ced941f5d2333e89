package kern

import (
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/gonum"
)

// Packs holds scratch space for transposed B operands, shared by the goroutines
// of concurrent runs.
var Packs keep[Scratch]

// edgePacks holds scratch space for B's last columns padded to the kernel's width.
var edgePacks keep[Scratch]

// A float32 matrix product for the pure-Go build. gonum's Sgemm runs 4-wide
// SSE loops; with AVX this one runs a 4×16 register-blocked kernel
// (fastmath_amd64.s; several times faster: bench/README.md, "Design
// measurements") on the blocks that fill it and plain loops on the edges. A build with OpenBLAS installed
// (blas32.Use) keeps OpenBLAS.

// OwnSgemm reports whether gemm32 should use the kernel here: AVX, and
// blas32 still on gonum's pure-Go implementation.
func OwnSgemm() bool {
	if !HasAVX {
		return false
	}
	_, ok := blas32.Implementation().(gonum.Implementation)
	return ok
}

// Sgemm sets C = op(A)·op(B) + beta·C for beta 0 or 1 (alpha 1), with C
// [m, n], op(A) [m, k], op(B) [k, n], row-major with leading dimensions.
// pack is scratch space for op(B) when B is transposed.
func Sgemm(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, pack *Scratch) {
	if m == 0 || n == 0 {
		return
	}
	acc := beta != 0
	if k == 0 {
		if !acc {
			for i := 0; i < m; i++ {
				clear(c[i*ldc : i*ldc+n])
			}
		}
		return
	}
	// A(i, l) at a[i·sia + l·sla]
	sia, sla := lda, 1
	if tA {
		sia, sla = 1, lda
	}
	// B(l, j) at b[l·ldb + j]: pack a transposed B
	if tB {
		p := pack.Get32(k * n)
		for j := 0; j < n; j++ {
			row := b[j*ldb : j*ldb+k]
			for l, v := range row {
				p[l*n+j] = v
			}
		}
		b, ldb = p, n
	}
	// with threads > 1, large products split C's rows into bands (whole
	// 4-row blocks; the last band takes the remainder) computed side by
	// side: every entry is computed as it would be in one band, so the
	// result is the same bit for bit
	if t := int(threads.Load()); t > 1 && m >= 8 && int64(m)*int64(n)*int64(k) >= parallelFlops {
		band := (m/t + 3) &^ 3
		spread((m+band-1)/band, func(i int) {
			i0 := i * band
			sgemmRows(min(band, m-i0), n, k, a[i0*sia:], sia, sla, b, ldb, c[i0*ldc:], ldc, acc)
		})
		return
	}
	sgemmRows(m, n, k, a, sia, sla, b, ldb, c, ldc, acc)
}

// parallelFlops is the size (m·n·k) from which a product splits over
// threads: below it, starting goroutines costs more than it saves.
const parallelFlops = 1 << 18

// threads is how many goroutines a large product may use (SetThreads).
var threads atomic.Int32

func init() { threads.Store(1) }

// SetThreads sets how many threads a matrix product may use: bands of the
// product on goroutines (rows in the pure-Go product, panels in GemmPacked,
// rows or columns of an OpenBLAS call in gx's gemm, OpenBLAS itself staying
// on one thread), or what SetBLASThreads does for a BLAS that threads
// itself. 1 (the default) keeps every product on its caller's thread, as a
// sweep running one run per core wants.
func SetThreads(n int) {
	n = max(1, n)
	startWorkers(n - 1)
	threads.Store(int32(n))
	SetBLASThreads(n)
}

// Threads is SetThreads's setting.
func Threads() int { return int(threads.Load()) }

// SetBLASThreads tells the BLAS in use (OpenBLAS: blas_openblas.go).
var SetBLASThreads = func(int) {}

// sgemmRows is sgemm's product, on op(B) already packed row-major, for the
// m rows of C from its start.
func sgemmRows(m, n, k int, a []float32, sia, sla int, b []float32, ldb int, c []float32, ldc int, acc bool) {
	m4, n16 := m&^3, n&^15
	for i := 0; i < m4; i += 4 {
		for j := 0; j < n16; j += 16 {
			sgemmBlock(k, a, i*sia, sia, sla, b, j, ldb, c, i*ldc+j, ldc, acc)
		}
	}
	// the edges: the last n%16 columns of every row, the last m%4 rows
	edge := func(i, j0, j1 int) {
		for j := j0; j < j1; j++ {
			var s float32
			for l := 0; l < k; l++ {
				s += a[i*sia+l*sla] * b[l*ldb+j]
			}
			if acc {
				c[i*ldc+j] += s
			} else {
				c[i*ldc+j] = s
			}
		}
	}
	if rem := n - n16; rem > 0 && m4 > 0 && k >= 64 {
		// A long, narrow edge (a weight gradient whose width is not a
		// multiple of 16, say 27 = 3·3·3 over 32,768 rows) runs the kernel
		// on B's last columns padded to 16 with zeros, through a 4×16 block.
		p := edgePacks.Get()
		pb := p.Get32(k * 16)
		for l := 0; l < k; l++ {
			copy(pb[l*16:l*16+rem], b[l*ldb+n16:l*ldb+n])
			clear(pb[l*16+rem : l*16+16])
		}
		var blk [64]float32
		for i := 0; i < m4; i += 4 {
			sgemmBlock(k, a, i*sia, sia, sla, pb, 0, 16, blk[:], 0, 16, false)
			for r := 0; r < 4; r++ {
				row := c[(i+r)*ldc+n16 : (i+r)*ldc+n]
				for j := range row {
					if acc {
						row[j] += blk[r*16+j]
					} else {
						row[j] = blk[r*16+j]
					}
				}
			}
		}
		edgePacks.Put(p)
	} else {
		for i := 0; i < m4; i++ {
			edge(i, n16, n)
		}
	}
	for i := m4; i < m; i++ {
		edge(i, 0, n)
	}
}

// Scratch is a working buffer kept across runs (an op's, or a product's
// packed operand).
type Scratch struct {
	f32 []float32
	f64 []float64
}

// Bytes is the memory the buffer holds.
func (s *Scratch) Bytes() int64 { return int64(cap(s.f32))*4 + int64(cap(s.f64))*8 }

func (s *Scratch) Get32(n int) []float32 {
	if cap(s.f32) < n {
		s.f32 = make([]float32, n)
	}
	return s.f32[:n]
}

func (s *Scratch) Get64(n int) []float64 {
	if cap(s.f64) < n {
		s.f64 = make([]float64, n)
	}
	return s.f64[:n]
}

// Float is the element types the kernels take.
type Float interface{ ~float32 | ~float64 }
