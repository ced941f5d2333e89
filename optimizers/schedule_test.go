package optimizers

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestScheduleRates: each schedule's rate at chosen updates n, by hand.
func TestScheduleRates(t *testing.T) {
	for _, c := range []struct {
		s    Schedule
		lr   float64
		n    []int
		want []float64
	}{
		// constant: lr at every update
		{Schedule{Name: "constant"}, 0.5, []int{1, 1000}, []float64{0.5, 0.5}},
		// no name, no decay: constant; no name with a decay: step
		{Schedule{}, 0.5, []int{1, 99}, []float64{0.5, 0.5}},
		{Schedule{Decay: 0.5, Every: 10}, 1, []int{10, 11}, []float64{1, 0.5}},
		// step, γ = 0.1 every 3: StepLR stepped after each update gives
		// update n the rate lr·γ^⌊(n−1)/3⌋: n = 1..3 → 2, 4..6 → 0.2,
		// 7 → 0.02; floored at min_lr 0.05: 2, 0.2, 0.05
		{Schedule{Name: "step", Decay: 0.1, Every: 3}, 2, []int{1, 3, 4, 6, 7}, []float64{2, 2, 0.2, 0.2, 0.02}},
		{Schedule{Name: "step", Decay: 0.1, Every: 3, MinLR: 0.05}, 2, []int{1, 4, 7}, []float64{2, 0.2, 0.05}},
		// inverse_sqrt, warmup 4, lr 1: n = 1 → 1/4, 2 → 1/2, 4 → 1 (the
		// peak), 16 → √(4/16) = 1/2, 100 → √(4/100) = 0.2; min_lr 0.3
		// lifts n = 1 to 0.3 and n = 100 to 0.3
		{Schedule{Name: "inverse_sqrt", Warmup: 4}, 1, []int{1, 2, 4, 16, 100}, []float64{0.25, 0.5, 1, 0.5, 0.2}},
		{Schedule{Name: "inverse_sqrt", Warmup: 4, MinLR: 0.3}, 1, []int{1, 2, 100}, []float64{0.3, 0.5, 0.3}},
		// lr 0.002, warmup 8000 (a Transformer's): n = 4000 → 0.001,
		// n = 32000 → 0.002·√(1/4) = 0.001
		{Schedule{Name: "inverse_sqrt", Warmup: 8000}, 0.002, []int{4000, 8000, 32000}, []float64{0.001, 0.002, 0.001}},
		// plateau without scores: lr
		{Schedule{Name: "plateau", Decay: 0.5}, 0.3, []int{1, 500}, []float64{0.3, 0.3}},
	} {
		r, err := NewScheduler(c.s, c.lr)
		if err != nil {
			t.Fatalf("%+v: %v", c.s, err)
		}
		for i, n := range c.n {
			if got := r.Rate(n); math.Abs(got-c.want[i]) > 1e-12*c.want[i] {
				t.Errorf("%+v, lr %g: update %d has rate %g, want %g", c.s, c.lr, n, got, c.want[i])
			}
		}
	}
}

// TestPlateau: a sequence of dev scores and the rate after each, worked as
// PyTorch's ReduceLROnPlateau(mode="max", factor=0.5, patience=1,
// threshold=0, min_lr=0.2, eps=0) steps: a score better than the best (strictly)
// resets the count of bad evaluations; when the count passes patience (2
// bad in a row) the rate is halved, floored at min_lr, and the count
// starts again from 0.
//
//	score  best  bad  rate
//	0.1    0.1   0    1      the first is the best
//	0.3    0.3   0    1
//	0.3    0.3   1    1      equal is not better
//	0.2    0.3   2→0  0.5    2 > patience 1: halved
//	0.25   0.3   1    0.5
//	0.4    0.4   0    0.5
//	0.1    0.4   1    0.5
//	0.1    0.4   2→0  0.25
//	0.1    0.4   1    0.25
//	0.1    0.4   2→0  0.2    0.125 floored at 0.2
//	0.1    0.4   1    0.2
//	0.1    0.4   2→0  0.2    at the floor
func TestPlateau(t *testing.T) {
	r, err := NewScheduler(Schedule{Name: "plateau", Decay: 0.5, Patience: 1, MinLR: 0.2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	scores := []float64{0.1, 0.3, 0.3, 0.2, 0.25, 0.4, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}
	rates := []float64{1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.2, 0.2, 0.2}
	bads := []int{0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0}
	for i, s := range scores {
		r.Observe(s)
		st := r.State()
		if got := r.Rate(100 + i); got != rates[i] || st.Bad != bads[i] {
			t.Errorf("after score %d (%g): rate %g, %d bad; want %g, %d", i+1, s, got, st.Bad, rates[i], bads[i])
		}
	}
	// the state restored into a fresh scheduler goes on as the first
	st := r.State()
	if *st != (ScheduleState{LR: 0.2, Best: 0.4, Bad: 0, Evals: 12}) {
		t.Errorf("state %+v, want rate 0.2, best 0.4, 0 bad, 12 evaluations", *st)
	}
	r2, _ := NewScheduler(Schedule{Name: "plateau", Decay: 0.5, Patience: 1, MinLR: 0.2}, 1)
	if err := r2.SetState(st); err != nil || r2.Rate(1) != 0.2 {
		t.Errorf("restored: rate %g, %v; want 0.2", r2.Rate(1), err)
	}
	// the other schedules keep nothing, and take no plateau's state
	r3, _ := NewScheduler(Schedule{Name: "inverse_sqrt", Warmup: 2}, 1)
	r3.Observe(5)
	if r3.State() != nil || r3.Rate(2) != 1 {
		t.Errorf("inverse_sqrt after a score: state %v, rate %g; want nil, 1", r3.State(), r3.Rate(2))
	}
	if err := r3.SetState(st); err == nil {
		t.Error("an inverse_sqrt schedule took a plateau's state")
	}
}

// TestScheduleCheck: each bad setting is refused, naming its key.
func TestScheduleCheck(t *testing.T) {
	for _, c := range []struct {
		s        Schedule
		key, msg string
	}{
		{Schedule{Name: "cosine"}, "schedule", `unknown "cosine" (have: constant, step, inverse_sqrt, plateau)`},
		{Schedule{Name: "step", Decay: 1, Every: 5}, "lr_decay", "must be in (0, 1)"},
		{Schedule{Name: "step", Decay: 0.5}, "lr_decay_every", "must be > 0"},
		{Schedule{Name: "inverse_sqrt"}, "warmup", "must be > 0"},
		{Schedule{Name: "plateau", Decay: 0}, "lr_decay", "must be in (0, 1)"},
		{Schedule{Name: "plateau", Decay: 0.5, Patience: -1}, "lr_patience", "must be ≥ 0"},
		{Schedule{Name: "step", Decay: 0.5, Every: 1, MinLR: 2}, "min_lr", "must be in [0, lr = 1]"},
	} {
		err := c.s.Check(1)
		var ke *KeyError
		if !errors.As(err, &ke) || ke.Key != c.key || !strings.Contains(ke.Msg, c.msg) {
			t.Errorf("%+v: %v; want %s: %s", c.s, err, c.key, c.msg)
		}
	}
	for _, info := range Schedules() {
		s := Schedule{Name: info.Name, Decay: 0.5, Every: 1, Warmup: 1}
		if err := s.Check(1); err != nil {
			t.Errorf("%s: %v", info.Name, err)
		}
		for _, k := range info.Keys {
			if !s.Reads(k) {
				t.Errorf("%s: lists %s and does not read it", info.Name, k)
			}
		}
	}
}
