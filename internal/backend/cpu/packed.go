package cpu

import "github.com/attnzoo/attnzoo/internal/gx/kern"

// NewRun begins a run: a weight is prepared again at its first product.
func (c *CPU) NewRun() { c.runs++ }

// Bytes is what the backend holds: the weights it has prepared.
func (c *CPU) Bytes() int64 {
	var n int64
	for _, p := range c.packs {
		n += int64(cap(p.data)) * 4
	}
	for _, p := range c.bpacks {
		n += p.p.Bytes()
	}
	return n
}

type bKey struct {
	data *float32
	tB   bool
	k, n int
}

type bPacked struct {
	gen uint64
	p   kern.PackedB
}

// PackedB returns op(B) [k, n] packed for kern.GemmPacked, for B (b with
// leading dimension ldb; [n, k] with tB) a weight: packed on its first use
// in this run.
func (c *CPU) PackedB(b []float32, tB bool, k, n, ldb int) *kern.PackedB {
	key := bKey{&b[0], tB, k, n}
	p := c.bpacks[key]
	if p == nil {
		if c.bpacks == nil {
			c.bpacks = map[bKey]*bPacked{}
		}
		p = &bPacked{gen: c.runs - 1}
		c.bpacks[key] = p
	}
	if p.gen != c.runs {
		kern.PackB(&p.p, tB, k, n, b, ldb)
		p.gen = c.runs
	}
	return &p.p
}

type packKey struct {
	data *float32
	rows int
}

type transposed struct {
	gen  uint64
	data []float32
}

// Transposed returns W[:rows]ᵀ ([cols, rows]) for a weight W [≥rows, cols],
// transposing it on its first use in this run.
func (c *CPU) Transposed(w []float32, rows, cols int) []float32 {
	k := packKey{&w[0], rows}
	p := c.packs[k]
	if p == nil {
		if c.packs == nil {
			c.packs = map[packKey]*transposed{}
		}
		p = &transposed{gen: c.runs - 1, data: make([]float32, rows*cols)}
		c.packs[k] = p
	}
	if p.gen != c.runs {
		for j := 0; j < rows; j++ {
			for l, v := range w[j*cols : (j+1)*cols] {
				p.data[l*rows+j] = v
			}
		}
		p.gen = c.runs
	}
	return p.data
}
