package seq2seq

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// Footprint is what a model holds while it trains and decodes, read off
// the memory plans of its graphs at the largest shapes a run will meet,
// compiled but not run: the engine's own accounting, not a model of it.
type Footprint struct {
	Params      int   `json:"params"`       // parameter values
	ParamBytes  int64 `json:"param_bytes"`  // the parameters' values
	Train       int64 `json:"train_bytes"`  // the training graph's plan (its gradients among its values)
	Decode      int64 `json:"decode_bytes"` // the largest decoding graph's plan: the encoder, greedy's steps, the beam's
	Work        int64 `json:"work_bytes"`   // the ops' working buffers (the arena keeps the most any graph takes)
	Packed      int64 `json:"packed_bytes"` // the weights packed for the products: at most two orientations of each
	Arena       int64 `json:"arena_bytes"`  // what a run's arena holds: the larger plan, the working buffers, the packed weights
	Held        int64 `json:"held_bytes"`   // what the graphs hold of their own, apart from the arena: their inputs (the beam's copies of the memory per row) and nodes (gx.Machine.HeldBytes)
	LargestPlan string
}

// PlanFootprint builds cfg's model and its graphs for a batch of B
// sources of up to S tokens (or regions) and targets of up to T tokens
// (</s> included), greedy decoding of up to maxLen tokens and a beam of
// width beam (1: none), compiles them into one arena and reads their
// plans. Nothing is run, and the arena allocates nothing.
func PlanFootprint(cfg Config, B, S, T, maxLen, beam int) (Footprint, error) {
	var f Footprint
	m, err := New(cfg)
	if err != nil {
		return f, err
	}
	f.Params = m.NumParams()
	bytes := int64(m.dt.Size())
	f.ParamBytes = int64(f.Params) * bytes
	a := gx.NewArena()
	var work []int64
	read := func(mach *gx.Machine) int64 {
		for i, b := range mach.WorkBytes() {
			if i == len(work) {
				work = append(work, 0)
			}
			work[i] = max(work[i], b)
		}
		defer mach.Close()
		f.Held += mach.HeldBytes()
		return mach.Bytes()
	}
	tg, err := m.buildTrain(a, B, S, T)
	if err != nil {
		return f, fmt.Errorf("seq2seq: planning the training graph: %w", err)
	}
	f.Train = read(tg.mach)
	eg, err := m.buildEnc(a, B, S)
	if err != nil {
		return f, fmt.Errorf("seq2seq: planning the encoder: %w", err)
	}
	f.Decode = read(eg.mach)
	prj := []int(eg.prj.Shape())
	steps := maxLen + 1
	chunks := (steps + greedyChunk - 1) / greedyChunk
	sg, err := m.buildStep(a, B, S, prj, (steps+chunks-1)/chunks)
	if err != nil {
		return f, fmt.Errorf("seq2seq: planning greedy decoding: %w", err)
	}
	f.Decode = max(f.Decode, read(sg.mach))
	if beam > 1 {
		bg, err := m.buildStep(a, B*beam, S, prj, 1)
		if err != nil {
			return f, fmt.Errorf("seq2seq: planning beam search: %w", err)
		}
		f.Decode = max(f.Decode, read(bg.mach))
	}
	for _, b := range work {
		f.Work += b
	}
	// each weight a product reads is packed once per arena for X·Wᵀ and
	// once for G·W (training's backward pass): at most both orientations of
	// every matrix (the cpu backend's PackedB, float32 products only)
	if bytes == 4 {
		for _, p := range m.params {
			if s := p.Shape(); len(s) == 2 {
				f.Packed += gx.PackedBytes(s[1], s[0]) + gx.PackedBytes(s[0], s[1])
			}
		}
	}
	f.Arena = max(f.Train, f.Decode) + f.Work + f.Packed
	f.LargestPlan = "the training graph"
	if f.Decode > f.Train {
		f.LargestPlan = "a decoding graph"
	}
	return f, nil
}

// BeamBytes is what Beam holds on the Go heap, besides the graph of its
// decoder step (PlanFootprint's), for a batch of B sources of up to S
// positions, width k, a target vocabulary of V, up to maxLen tokens and
// values of b bytes (4 or 8), read off Beam with R = B·k rows and
// maxLen + 1 steps:
//
//	history = (maxLen+1)·R·(b·S + 8)               each step's weights [R·S], parents and tokens [R] int32
//	rows    = 42·R                                 scores and alive, twice (8 + 1 bytes each), idx, the tokens fed, the stepper's row → source map
//	step    = 64·k + 8·(min(k, V) + 1) + 8·V       the 2k best candidates (32 bytes each), the top-k buffer, a row of log-probabilities
//	sources = 32·B + B·(maxLen+1)·(8·S + 32)       each source's count and best finished hypothesis; the returned tokens and alignment rows
//	small   = 256·(maxLen+1) + 64 KiB              the per-step lists and views; the stepper's and encoder's bookkeeping
//
// Sizes are float64, so a typo's product cannot overflow.
func BeamBytes(B, k, S, V, maxLen, b float64) float64 {
	R, steps := B*k, maxLen+1
	history := steps * R * (b*S + 8)
	rows := 42 * R
	step := 64*k + 8*(min(k, V)+1) + 8*V
	sources := 32*B + B*steps*(8*S+32)
	small := 256*steps + 64<<10
	return history + rows + step + sources + small
}
