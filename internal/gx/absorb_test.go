package gx_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// sumCounter is the cpu backend counting the calls of the steps that add
// a term into a sum over the decoder's positions: Outer (AttentionDH),
// ColSums of one row (an Unflat's accumulate) and of several (SumRows:
// the additive bias's ∂c, over the batch's rows).
type sumCounter struct {
	*cpu.CPU
	outer, colSums, sumRows int
}

func (c *sumCounter) Outer(y, w, v backend.Buf, B, S, D, h int, cc float64, acc bool) error {
	c.outer++
	return c.CPU.Outer(y, w, v, B, S, D, h, cc, acc)
}

func (c *sumCounter) ColSums(y backend.Buf, yOff int, x backend.Buf, xOff, ld, rows, cols int, acc bool) error {
	if rows == 1 {
		c.colSums++
	} else {
		c.sumRows++
	}
	return c.CPU.ColSums(y, yOff, x, xOff, ld, rows, cols, acc)
}

// TestAbsorbSameBits: the fused attention's backward doing the work of the
// steps that add its terms into the sums over the positions (fold.go's
// absorbSteps) gives every value and gradient of T positions bit for bit
// as the steps themselves do, and calls the backend that many times
// fewer. Of the T terms of a sum the first computed is the sum's buffer
// (written, not added), so T − 1 are absorbed: the values' ∂H (Outer),
// for the additive and dot scores the key-side gradient (an Unflat's
// accumulate, ColSums) and for the additive one the bias's ∂c (SumRows).
// The dot score's keys are the values (one sum of 2T terms): its first
// position's ∂H adds into that position's ∂X, computed after the
// backward's step, so it is not absorbed; the other T − 1 positions' ∂X
// and ∂H are, ∂X first, as their steps ran. With 3 heads the keys are an
// input of their own, and ∂H is the Outer of the heads' mean weights.
func TestAbsorbSameBits(t *testing.T) {
	const B, S, D, T = 3, 7, 5, 4
	for _, dt := range []gx.Dtype{gx.Float32, gx.Float64} {
		for _, score := range []string{"additive", "dot", "heads", "given"} {
			what := fmt.Sprintf("%v %s", dt, score)
			run := func(on bool) ([][]float64, *sumCounter) {
				defer gx.SetAbsorb(gx.SetAbsorb(on))
				g := gx.NewGraph(dt)
				outs, wrt, c := attendChain(g, normalInputs(g, 5, 6), g.Const("mask", attnMask(S), B, S), score, true, false, T, S, D)
				outs = append(outs, g.Grad(c, wrt...)...)
				for _, o := range outs {
					g.Watch(o)
				}
				be := &sumCounter{CPU: cpu.New()}
				a := gx.NewArena()
				if err := a.SetBackend(be); err != nil {
					t.Fatal(err)
				}
				m, err := g.MachineIn(a)
				return machineValues(t, what, g, m, err, outs), be
			}
			apart, n0 := run(false)
			absorbed, n1 := run(true)
			for i := range apart {
				if !slices.Equal(apart[i], absorbed[i]) {
					t.Errorf("%s: output %d differs absorbed: %v vs %v", what, i, absorbed[i][:min(4, len(absorbed[i]))], apart[i][:min(4, len(apart[i]))])
				}
			}
			keys, bias := T-1, T-1
			if score == "given" {
				keys = 0
			}
			if score != "additive" {
				bias = 0
			}
			if n0.outer-n1.outer != T-1 || n0.colSums-n1.colSums != keys || n0.sumRows-n1.sumRows != bias {
				t.Errorf("%s: absorbed, %d Outer, %d ColSums, %d SumRows calls fewer: want %d, %d, %d",
					what, n0.outer-n1.outer, n0.colSums-n1.colSums, n0.sumRows-n1.sumRows, T-1, keys, bias)
			}
		}
	}
}

// machineValues runs machine m of g (err: compiling it) once, closes it, and
// returns the values of outs.
func machineValues(t *testing.T, what string, g *gx.Graph, m *gx.Machine, err error, outs []*gx.Node) [][]float64 {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer m.Close()
	if err := m.Run(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	vals := make([][]float64, len(outs))
	for i, n := range outs {
		if vals[i], err = g.Value(n); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	return vals
}
