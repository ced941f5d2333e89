package seq2seq

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	"github.com/attnzoo/attnzoo/internal/backend/minimal"
)

// TestMinimalDeviceTraining: on a device backend with only the required
// interface (package minimal: no backend.Stepper), a Trainer's step clips
// and updates through the backend's own SumSquares and rule methods
// (opsUpdate). Five steps of each rule, clipped to 0.2 (the norms are 0.3 to 0.4):
//
//   - give the same losses and parameters, bit for bit, as the cpu backend
//     on the same device path with its fused ops undeclared (cpuUnfused:
//     the same methods on Go slices, the same graphs);
//   - are within rounding of the host's float32 training: the losses to
//     1e-6 relative and every parameter to 1e-5. The device path keeps the
//     moments in float32 (the host in float64) and folds gradient Adds
//     into their operands' ops (one rounding instead of two), each a
//     float32 rounding (2⁻²⁴ relative) per step; measured: losses equal,
//     parameters at most 3.1e-6 apart (rmsprop, whose g/√v magnifies a
//     moment's rounding). A lost or doubled update is off by a step, ~lr =
//     1e-2.
func TestMinimalDeviceTraining(t *testing.T) {
	for _, opt := range []string{"adam", "rmsprop", "sgd"} {
		t.Run(opt, func(t *testing.T) {
			cfg := tiny("gru", "birnn", "bahdanau", "concat")
			cfg.Dtype = "float32"
			rng := rand.New(rand.NewPCG(3, 4))
			src, tgt := reversal(rng, 3, 2, 5)
			b, err := NewBatch(src, tgt)
			if err != nil {
				t.Fatal(err)
			}
			o := Optimizer{Name: opt, LR: 0.01, Clip: 0.2}
			host, onCPU, onMin := trainerOn(t, cfg, o, nil), trainerOn(t, cfg, o, cpuUnfused{cpu.New()}), trainerOn(t, cfg, o, minimal.New("minimal"))
			if _, ok := onMin.Model.Device().(backend.Stepper); ok {
				t.Fatal("the minimal device has an update of its own")
			}
			clipped := false
			for step := 1; step <= 5; step++ {
				var ls [3]float64
				for i, tr := range []*Trainer{host, onCPU, onMin} {
					if ls[i], err = tr.Step(b); err != nil {
						t.Fatal(err)
					}
				}
				clipped = clipped || onMin.Opt.LastNorm > 0.2
				if ls[2] != ls[1] || onMin.Opt.LastNorm != onCPU.Opt.LastNorm {
					t.Errorf("step %d: loss %v, norm %v on the minimal device; %v, %v on the cpu backend's device path",
						step, ls[2], onMin.Opt.LastNorm, ls[1], onCPU.Opt.LastNorm)
				}
				if math.Abs(ls[2]-ls[0]) > 1e-6*ls[0] {
					t.Errorf("step %d: loss %v on the minimal device, %v on the host", step, ls[2], ls[0])
				}
			}
			if !clipped {
				t.Errorf("no step was clipped (norm %v): the clip is not exercised", onMin.Opt.LastNorm)
			}
			for _, tr := range []*Trainer{onCPU, onMin} {
				if err := tr.Model.Sync(); err != nil {
					t.Fatal(err)
				}
			}
			for i, p := range onMin.Model.Params() {
				if !slices.Equal(p.Data32(), onCPU.Model.Params()[i].Data32()) {
					t.Errorf("%s differs from the cpu backend's device path", p.Name)
				}
				q := host.Model.Params()[i]
				for j := range p.Size() {
					if math.Abs(p.At(j)-q.At(j)) > 1e-5 {
						t.Errorf("%s[%d] = %v on the minimal device, %v on the host", p.Name, j, p.At(j), q.At(j))
						break
					}
				}
			}
		})
	}
}

// TestMinimalDeviceNaN: opsUpdate stops the updates at a non-finite loss,
// as the OpenCL update does (TestDevicePush): the step is reported as a
// *LossError and taken back, the parameters are left as they were, and
// once the parameter is repaired the updates apply again.
func TestMinimalDeviceNaN(t *testing.T) {
	cfg := tiny("gru", "birnn", "bahdanau", "concat")
	cfg.Dtype = "float32"
	tr := trainerOn(t, cfg, Optimizer{Name: "adam", LR: 0.01, Clip: 0.5}, minimal.New("minimal"))
	m := tr.Model
	src, tgt := reversal(rand.New(rand.NewPCG(5, 6)), 3, 2, 5)
	b, err := NewBatch(src, tgt)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := tr.Step(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Sync(); err != nil {
		t.Fatal(err)
	}
	p0 := m.Params()[0]
	keep := p0.Data32()[0]
	p0.Data32()[0] = float32(math.NaN())
	m.paramsChanged()
	snap := make([][]float32, len(m.Params()))
	for i, p := range m.Params() {
		snap[i] = slices.Clone(p.Data32())
	}
	_, err = tr.Step(b)
	var le *LossError
	if !errors.As(err, &le) || le.Step != 3 || !math.IsNaN(le.Loss) {
		t.Fatalf("step 3 returned %v, want a NaN loss at step 3", err)
	}
	if tr.Steps != 2 || tr.Opt.t != 2 {
		t.Errorf("after the NaN loss: %d steps, optimizer at %d; want both 2", tr.Steps, tr.Opt.t)
	}
	if err := m.Sync(); err != nil {
		t.Fatal(err)
	}
	for i, p := range m.Params() {
		if !slices.EqualFunc(p.Data32(), snap[i], func(a, b float32) bool { return a == b || a != a && b != b }) {
			t.Errorf("%s changed in the step of the NaN loss", p.Name)
		}
	}
	p0.Data32()[0] = keep
	m.paramsChanged()
	if _, err := tr.Step(b); err != nil {
		t.Fatal(err)
	}
	if err := m.Sync(); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(m.Params()[1].Data32(), snap[1]) {
		t.Errorf("the updates did not apply again after the parameter was repaired")
	}
}

// trainerOn is a Trainer of a new model of cfg with optimizer o's
// settings, its parameters on backend be (the host for nil), closed when
// the test ends.
func trainerOn(t *testing.T, cfg Config, o Optimizer, be backend.Backend) *Trainer {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opt, err := NewOptimizer(o)
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTrainer(m, opt, 1)
	t.Cleanup(tr.Cache.Close)
	if be != nil {
		if err := m.UseDevice(be); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.UseDevice(nil) })
	}
	return tr
}

// cpuUnfused is the cpu backend with its fused ops undeclared
// (backend.Fuser): the graphs built for it are the minimal backend's.
type cpuUnfused struct{ *cpu.CPU }

func (cpuUnfused) Fuses(string) bool { return false }
