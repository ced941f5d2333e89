package gx

// runState is what the ops of a graph share within one run: the run's
// number (Machine.Run counts them) and, for the pure-Go products, the
// transposes of the weights that X·Wᵀ reads, made once per run however
// many steps read the same weight.
type runState struct {
	gen   uint64
	packs map[packKey]*packed
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
	k := packKey{&w[0], rows}
	p := r.packs[k]
	if p == nil {
		if r.packs == nil {
			r.packs = map[packKey]*packed{}
		}
		p = &packed{gen: r.gen - 1, data: make([]float32, rows*cols)}
		r.packs[k] = p
	}
	if p.gen != r.gen {
		for j := 0; j < rows; j++ {
			for l, v := range w[j*cols : (j+1)*cols] {
				p.data[l*rows+j] = v
			}
		}
		p.gen = r.gen
	}
	return p.data
}
