package gx

import "github.com/attnzoo/attnzoo/internal/gx/kern"

// runState is what the ops of a graph share: the arena the graph was
// compiled into (Machine, MachineIn), which holds the weights that products
// read, prepared once per run however many steps read the same weight:
// packed for kern.GemmPacked, or transposed for the pure-Go products. An op
// run outside a machine (a test calling Do) gets an arena of its own.
type runState struct{ arena *Arena }

func (r *runState) a() *Arena {
	if r.arena == nil {
		r.arena = NewArena()
	}
	return r.arena
}

// temp returns the next working buffer of the op that runs (Arena.temp).
func (r *runState) temp() *kern.Scratch { return r.a().temp() }

type bKey struct {
	data *float32
	tB   bool
	k, n int
}

type bPacked struct {
	gen uint64
	p   kern.PackedB
}

// usePacked reports whether a product on a weight packed once per run runs
// on kern.GemmPacked, whatever its rows: wherever it has its AVX-512 kernel
// (BenchmarkGemmShapes; figures in bench/README.md, "Design measurements").
func usePacked() bool { return kern.PackedFast }

// packedB returns op(B) [k, n] packed for kern.GemmPacked, for B (b with
// leading dimension ldb; [n, k] with tB) a weight that is an input of the
// graph, so constant within a run: packed on its first use in this run.
func (r *runState) packedB(b []float32, tB bool, k, n, ldb int) *kern.PackedB {
	a := r.a()
	key := bKey{&b[0], tB, k, n}
	p := a.bpacks[key]
	if p == nil {
		if a.bpacks == nil {
			a.bpacks = map[bKey]*bPacked{}
		}
		p = &bPacked{gen: a.runs - 1}
		a.bpacks[key] = p
	}
	if p.gen != a.runs {
		kern.PackB(&p.p, tB, k, n, b, ldb)
		p.gen = a.runs
	}
	return &p.p
}

type packKey struct {
	data *float32
	rows int
}

type packed struct {
	gen  uint64
	data []float32
}

// transposed returns W[:rows]ᵀ ([cols, rows]) for a weight W [≥rows, cols]
// that is an input of the graph (so its values cannot change within a
// run), transposing it on its first use in this run.
func (r *runState) transposed(w []float32, rows, cols int) []float32 {
	a := r.a()
	k := packKey{&w[0], rows}
	p := a.packs[k]
	if p == nil {
		if a.packs == nil {
			a.packs = map[packKey]*packed{}
		}
		p = &packed{gen: a.runs - 1, data: make([]float32, rows*cols)}
		a.packs[k] = p
	}
	if p.gen != a.runs {
		for j := 0; j < rows; j++ {
			for l, v := range w[j*cols : (j+1)*cols] {
				p.data[l*rows+j] = v
			}
		}
		p.gen = a.runs
	}
	return p.data
}

// PackedBytes is what an arena holds for a float32 weight op(B) [k, n]
// packed for the products (kern.PackB).
func PackedBytes(k, n int) int64 { return kern.PackedBytes(k, n) }
