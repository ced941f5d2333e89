package gx_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/device/devicetest"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// The batch of the sequence tests: B rows of T steps.
const seqB, seqT = 3, 5

// seqIds are T·B token ids below V, row t·B+b for step t of row b (the
// encoder's time-major order): the ids of a small set many times each, 0
// (PadID) at the padding (row b has T − b steps), and V − 1 at the first
// and the last position (a list of EmbedGrad's that spans all positions).
func seqIds(V int) []float64 {
	ids := make([]float64, seqT*seqB)
	for r := range ids {
		t, b := r/seqB, r%seqB
		if t < seqT-b {
			ids[r] = float64((r*5 + 2) % min(V, 7))
		}
	}
	ids[0], ids[len(ids)-1] = float64(V-1), float64(V-1)
	return ids
}

// TestDeviceSeq: the sequence plumbing, bias and row sums, and the
// embedding (repeated ids) looked up once for all steps and once per step,
// on the device, forward and gradient, at sizes of no work-group multiple.
func TestDeviceSeq(t *testing.T) {
	for _, H := range deviceSizes {
		agreeOnDevice(t, fmt.Sprintf("plumbing H=%d", H),
			[]string{"Stack", "TakeStep", "PutStep", "StackRows", "Rows", "PadRows", "ConcatLast", "SliceLast", "PadLast", "AddBias", "SumRows"},
			func(g *devGraph) []*gx.Node {
				xs := make([]*gx.Node, seqT)
				for i := range xs {
					xs[i] = g.In(1, seqB, H)
				}
				X := g.Stack(xs...)                                   // [B,T,H]
				st := g.StackRows(g.TakeStep(X, 1), g.TakeStep(X, 4)) // [2B,H]
				r := g.Rows(st, 1, 2*seqB-1)                          // [2B−2,H]
				c := g.ConcatLast(r, g.In(1, 2*seqB-2, 5))            // [2B−2,H+5]
				sl := g.AddBias(g.SliceLast(c, 1, H+3), g.In(1, H+2)) // [2B−2,H+2]
				return append([]*gx.Node{X, st, sl}, g.Grad(g.Cost(sl), xs...)...)
			})
	}
	// 11 blocks: one launch of 8 and one of 3 (the device's Stack); the
	// gradient's 11 blocks are views of the stacked gradient (Unstack)
	// where the device can start a sub-buffer at each offset t·B·H,
	// 11 launches fewer than a Rows apiece (the graph built for a
	// backend that does not declare Unstack), and copied one apiece,
	// the same count, where it cannot
	for _, H := range append(deviceSizes, 256) {
		stack11 := func(target backend.Backend) func(g *devGraph) []*gx.Node {
			return func(g *devGraph) []*gx.Node {
				g.SetTarget(target)
				xs := make([]*gx.Node, 11)
				for i := range xs {
					xs[i] = g.In(1, seqB, H)
				}
				st := g.StackRows(xs...)
				return append([]*gx.Node{st}, g.Grad(g.Cost(st), xs...)...)
			}
		}
		be := devicetest.OpenCL(t).Backend()
		agreeOnDevice(t, fmt.Sprintf("stack of 11 H=%d", H), []string{"StackRows", "Unstack"}, stack11(be))
		agreeOnDevice(t, fmt.Sprintf("stack of 11 H=%d unfused", H), []string{"StackRows", "Rows"}, stack11(unfused{be}))
		views, rows := runLaunches(t, stack11(be), nil, false), runLaunches(t, stack11(unfused{be}), nil, false)
		want := int64(0) // the blocks whose offset t·B·H starts a sub-buffer
		for i := range 11 {
			if a := int(devicetest.OpenCL(t).Device().BaseAlign); a > 0 && i*seqB*H*4%a == 0 {
				want++
			}
		}
		if rows-views != want {
			t.Errorf("stack of 11 H=%d: %d launches a run with the blocks as views, %d as Rows: want %d fewer", H, views, rows, want)
		}
		if H == 256 && want != 11 {
			t.Errorf("H=256: blocks of %d bytes: the device starts no sub-buffer at them (base alignment %d bytes)", seqB*H*4, devicetest.OpenCL(t).Device().BaseAlign)
		}
	}
	for _, V := range []int{37, 129, 1023} {
		for _, D := range []int{1, 37} {
			ids := seqIds(V)
			agreeOnDevice(t, fmt.Sprintf("embed V=%d D=%d", V, D), []string{"Embed", "EmbedGrad"}, func(g *devGraph) []*gx.Node {
				E := g.In(1, V, D)
				y := g.Embed(E, g.Const(ids, seqT*seqB)) // [T·B,D]
				return append([]*gx.Node{y}, g.Grad(g.Cost(y), E)...)
			})
			agreeOnDevice(t, fmt.Sprintf("embed per step V=%d D=%d", V, D), []string{"Embed", "EmbedGrad", "Stack"}, func(g *devGraph) []*gx.Node {
				E := g.In(1, V, D)
				steps := make([]*gx.Node, seqT) // T lookups of [B,D]
				for t := range steps {
					steps[t] = g.Embed(E, g.Const(ids[t*seqB:(t+1)*seqB], seqB))
				}
				X := g.Stack(steps...)
				return append([]*gx.Node{X}, g.Grad(g.Cost(X), E)...)
			})
		}
	}
}

// TestDeviceXent: the masked cross-entropy, its gradient, log-softmax and
// argmax over T·B rows at vocabularies of no work-group multiple, each
// compared on its own (the tolerance scales with the largest value
// compared). The mask weights rows 1, ½ and ¼ and masks the padding,
// whose targets are out of range (the host skips them unread); one target
// is V − ½, which the host reads as V − 1. Argmax rows: the logits, a row
// of equal values, a maximum at two places, a NaN first entry (the host's
// scan keeps index 0).
func TestDeviceXent(t *testing.T) {
	for _, V := range []int{1, 37, 129, 1023} {
		rows := func(g *devGraph) (z, yn, mn *gx.Node) {
			y := make([]float64, seqT*seqB)
			m := make([]float64, seqT*seqB)
			for r := range y {
				t, b := r/seqB, r%seqB
				y[r], m[r] = float64((r*11)%V), []float64{1, 0.5, 0.25}[b]
				if t >= seqT-b { // padding
					y[r], m[r] = float64(V+r), 0
				}
			}
			y[0], y[1] = float64(V-1), float64(V)-0.5
			return g.In(3, seqT*seqB, V), g.Const(y, seqT*seqB), g.Const(m, seqT*seqB)
		}
		xent := func(g *devGraph) (z, loss *gx.Node) {
			z, y, m := rows(g)
			return z, g.SoftmaxXent(z, y, m, 0.7)
		}
		agreeOnDevice(t, fmt.Sprintf("xent V=%d", V), []string{"SoftmaxXent"}, func(g *devGraph) []*gx.Node {
			_, loss := xent(g)
			return []*gx.Node{loss}
		})
		agreeOnDevice(t, fmt.Sprintf("xent gradient V=%d", V), []string{"SoftmaxXent", "SoftmaxXentGrad"}, func(g *devGraph) []*gx.Node {
			z, loss := xent(g)
			return g.Grad(g.Mul(loss, g.In(1)), z) // an upstream gradient g ≠ 1
		})
		// label smoothing: the same rows, ε = 0.1 read from an input
		smoothed := func(g *devGraph) (z, loss *gx.Node) {
			z, y, m := rows(g)
			return z, g.SmoothedXent(z, y, m, g.Const([]float64{0.1}, 1), 0.7)
		}
		agreeOnDevice(t, fmt.Sprintf("smoothed xent V=%d", V), []string{"SmoothedXent"}, func(g *devGraph) []*gx.Node {
			_, loss := smoothed(g)
			return []*gx.Node{loss}
		})
		agreeOnDevice(t, fmt.Sprintf("smoothed xent gradient V=%d", V), []string{"SmoothedXent", "SmoothedXentGrad"}, func(g *devGraph) []*gx.Node {
			z, loss := smoothed(g)
			return g.Grad(g.Mul(loss, g.In(1)), z)
		})
		agreeOnDevice(t, fmt.Sprintf("log-softmax V=%d", V), []string{"LogSoftmax"}, func(g *devGraph) []*gx.Node {
			return []*gx.Node{g.LogSoftmax(g.In(3, seqT*seqB, V))}
		})
		agreeOnDevice(t, fmt.Sprintf("argmax V=%d", V), []string{"ArgmaxLast"}, func(g *devGraph) []*gx.Node {
			rows := make([]float64, 3*V)
			for i := range V {
				rows[V+i] = float64(i % 2)      // the maximum at 1 (and 3, …)
				rows[2*V+i] = float64(i%3) - 10 // after a NaN
			}
			rows[2*V] = math.NaN()
			return []*gx.Node{g.ArgmaxLast(g.In(3, seqT*seqB, V)), g.ArgmaxLast(g.Const(rows, 3, V))}
		})
	}
}

// TestDeviceBadIds: an id that the host's Embed refuses (out of [0, V) or
// not whole) is no error on the device but a NaN row, the other rows as the
// host has them; as a weighted target, the loss is NaN where the host
// refuses it (out of [0, V) once truncated: 2.5 is target 2).
func TestDeviceBadIds(t *testing.T) {
	d := devicetest.OpenCL(t)
	const V, D = 37, 5
	for _, bad := range []float64{-1, V, 2.5, math.NaN()} {
		g := gx.NewGraph(gx.Float32)
		E := g.Input("E", V, D)
		g.Fail(gx.Fill(E, func(i int) float64 { return float64(i) }))
		emb := g.Watch(g.Embed(E, g.Const("ids", []float64{3, bad, 36}, 3)))
		z := g.Input("z", 3, V)
		loss := g.Watch(g.SoftmaxXent(z, g.Const("y", []float64{3, bad, 36}, 3), g.Const("m", []float64{1, 1, 1}, 3), 1))
		host, err := g.Machine()
		if err != nil {
			t.Fatal(err)
		}
		if err := host.Run(); err == nil {
			t.Errorf("id %v: the host machine ran", bad)
		}
		host.Close()
		m, err := g.MachineOn(d.Backend())
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Run(); err != nil {
			t.Fatalf("id %v: %v", bad, err)
		}
		e, err := g.Value(emb)
		if err != nil {
			t.Fatal(err)
		}
		l, err := g.Value(loss)
		if err != nil {
			t.Fatal(err)
		}
		for j := range D {
			if e[j] != float64(3*D+j) || !math.IsNaN(e[D+j]) || e[2*D+j] != float64(36*D+j) {
				t.Errorf("id %v: Embed on the device gives %v", bad, e)
				break
			}
		}
		if out := !(bad > -1 && bad < V); math.IsNaN(l[0]) != out { // the host truncates a target
			t.Errorf("id %v: the loss on the device is %v (target out of range: %v)", bad, l[0], out)
		}
		m.Close()
	}
}

// TestDeviceConv: Im2Col and its gradient on B 7×5 images of 3 channels,
// kernels 3 (stride 2, pad 1) and 4 (stride 1, pad 1: positions read by
// up to 16 windows).
func TestDeviceConv(t *testing.T) {
	for _, geo := range []gx.ConvGeom{{H: 7, W: 5, K: 3, Stride: 2, Pad: 1}, {H: 7, W: 5, K: 4, Stride: 1, Pad: 1}} {
		agreeOnDevice(t, fmt.Sprintf("conv %v", geo), []string{"Im2Col", "Col2Im", "ReLU", "ReLUGrad"}, func(g *devGraph) []*gx.Node {
			x := g.In(1, seqB, geo.H*geo.W, 3)
			y := g.ReLU(g.Im2Col(x, geo))
			return append([]*gx.Node{y}, g.Grad(g.Cost(y), x)...)
		})
	}
}

// runLaunches is the kernels one run of build's graph launches on the
// device (its second run: the first allocates the ops' working buffers),
// with one of the device machine's rewrites on or off: set is its switch
// (gx.SetFoldDeviceAdds), which returns the setting before; nil where
// build itself chooses what the graph is.
func runLaunches(t *testing.T, build func(g *devGraph) []*gx.Node, set func(bool) bool, on bool) int64 {
	t.Helper()
	d := devicetest.OpenCL(t)
	if set != nil {
		defer set(set(on))
	}
	g := newDevGraph()
	for _, n := range build(g) {
		g.Watch(n)
	}
	m, err := g.MachineOn(d.Backend())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	before := d.Traffic().Launches
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	return d.Traffic().Launches - before
}
