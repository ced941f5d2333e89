package optimizers

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Schedule is a learning-rate schedule ([train] schedule and the keys it
// reads): the rate of each update n (counted from 1) from the base rate
// lr. Each schedule's rate is floored at MinLR (where it reads it):
//
//   - constant:     lr
//   - step:         lr · Decay^⌊(n−1)/Every⌋, PyTorch's StepLR(step_size = Every, gamma = Decay)
//     stepped after each update
//   - inverse_sqrt: lr · min(n/Warmup, √(Warmup/n)): a linear warm-up to lr at update Warmup, then
//     the inverse square root of the update number (Vaswani et al. 2017, eq. 3, scaled so that
//     its peak is lr; Joey NMT's "noam" without the model size, its step counted from 1)
//   - plateau:      lr, times Decay whenever Patience+1 dev evaluations in a row brought no
//     better score: PyTorch's ReduceLROnPlateau(mode = "max", factor = Decay, patience =
//     Patience, threshold = 0, min_lr = MinLR, eps = 0), stepped with the dev score after each
//     evaluation (Observe); Joey NMT's "plateau" with eps 0 too, a strictly better score
//     counting as better
//
// An empty Name is constant, or step where Decay < 1: the decay alone, as
// files gave it before schedules.
type Schedule struct {
	Name     string
	Decay    float64 // step, plateau: the factor on the rate ([train] lr_decay)
	Every    int     // step: updates between decays ([train] lr_decay_every)
	Warmup   int     // inverse_sqrt: the updates of the warm-up ([train] warmup)
	Patience int     // plateau: evaluations without a better score the rate waits ([train] lr_patience)
	MinLR    float64 // the rate's floor, 0: none ([train] min_lr)
}

// ScheduleInfo describes a schedule for `attnzoo list`: its name, the
// [train] keys it reads and its formula.
type ScheduleInfo struct {
	Name    string   `json:"name"`
	Keys    []string `json:"keys"`
	Formula string   `json:"formula"`
}

// schedules are the schedules, in the order `attnzoo list` shows them.
var schedules = []ScheduleInfo{
	{"constant", []string{}, "lr"},
	{"step", []string{"lr_decay", "lr_decay_every", "min_lr"}, "lr·lr_decay^⌊(n−1)/lr_decay_every⌋"},
	{"inverse_sqrt", []string{"warmup", "min_lr"}, "lr·min(n/warmup, √(warmup/n))"},
	{"plateau", []string{"lr_decay", "lr_patience", "min_lr"}, "lr·lr_decay after lr_patience+1 dev evaluations without a better [train] select score"},
}

// Schedules describes every schedule (n: the update's number, from 1).
func Schedules() []ScheduleInfo { return slices.Clone(schedules) }

// ScheduleNames are the schedules' names.
func ScheduleNames() []string {
	var out []string
	for _, s := range schedules {
		out = append(out, s.Name)
	}
	return out
}

// Resolved is the schedule's name, an empty one resolved (constant, or
// step where Decay < 1).
func (s Schedule) Resolved() string {
	switch {
	case s.Name != "":
		return s.Name
	case s.Decay > 0 && s.Decay < 1:
		return "step"
	}
	return "constant"
}

// Reads reports whether the schedule reads the [train] key.
func (s Schedule) Reads(key string) bool {
	for _, info := range schedules {
		if info.Name == s.Resolved() {
			return slices.Contains(info.Keys, key)
		}
	}
	return false
}

// KeyError is a schedule setting's error: the [train] key and what is
// wrong with its value.
type KeyError struct {
	Key, Msg string
}

func (e *KeyError) Error() string { return "optimizers: " + e.Key + ": " + e.Msg }

// Check checks the settings the schedule reads, with base rate lr.
func (s Schedule) Check(lr float64) error {
	bad := func(key, format string, a ...any) error { return &KeyError{key, fmt.Sprintf(format, a...)} }
	name := s.Resolved()
	if !slices.Contains(ScheduleNames(), name) {
		return bad("schedule", "unknown %q (have: %s)", name, strings.Join(ScheduleNames(), ", "))
	}
	if s.Reads("lr_decay") && !(s.Decay > 0 && s.Decay < 1) {
		return bad("lr_decay", "must be in (0, 1) with schedule %q, got %g", name, s.Decay)
	}
	if s.Reads("lr_decay_every") && s.Every <= 0 {
		return bad("lr_decay_every", "must be > 0 with schedule %q, got %d", name, s.Every)
	}
	if s.Reads("warmup") && s.Warmup <= 0 {
		return bad("warmup", "must be > 0 with schedule %q, got %d", name, s.Warmup)
	}
	if s.Patience < 0 {
		return bad("lr_patience", "must be ≥ 0, got %d", s.Patience)
	}
	if !(s.MinLR >= 0 && s.MinLR <= lr) {
		return bad("min_lr", "must be in [0, lr = %g], got %g", lr, s.MinLR)
	}
	return nil
}

// Scheduler is a schedule in progress: the rate of each update, and
// plateau's dev scores so far.
type Scheduler struct {
	s  Schedule
	lr float64
	st ScheduleState
}

// ScheduleState is what a schedule carries between dev evaluations, for
// checkpoints: plateau's rate now, its best score and the evaluations
// since it (PyTorch's num_bad_epochs). The other schedules keep nothing.
type ScheduleState struct {
	LR    float64 `json:"lr"`
	Best  float64 `json:"best"`
	Bad   int     `json:"bad"`
	Evals int     `json:"evals"` // 0: no score yet (Best unset)
}

// NewScheduler checks s (Check) and starts it at base rate lr.
func NewScheduler(s Schedule, lr float64) (*Scheduler, error) {
	if err := s.Check(lr); err != nil {
		return nil, err
	}
	s.Name = s.Resolved()
	return &Scheduler{s: s, lr: lr, st: ScheduleState{LR: lr}}, nil
}

// Rate is the learning rate of update n (from 1).
func (r *Scheduler) Rate(n int) float64 {
	s := r.s
	var lr float64
	switch s.Name {
	case "step":
		lr = r.lr * math.Pow(s.Decay, float64((n-1)/s.Every))
	case "inverse_sqrt":
		x := float64(n) / float64(s.Warmup)
		lr = r.lr * min(x, 1/math.Sqrt(x))
	case "plateau":
		return r.st.LR // floored where it drops
	default:
		return r.lr
	}
	return max(lr, s.MinLR)
}

// Observe takes a dev evaluation's score (higher is better): plateau's
// ReduceLROnPlateau step; the other schedules ignore it.
func (r *Scheduler) Observe(score float64) {
	if r.s.Name != "plateau" {
		return
	}
	st := &r.st
	if st.Evals == 0 || score > st.Best {
		st.Best, st.Bad = score, 0
	} else {
		st.Bad++
	}
	st.Evals++
	if st.Bad > r.s.Patience {
		st.LR, st.Bad = max(st.LR*r.s.Decay, r.s.MinLR), 0
	}
}

// State returns the schedule's state (nil for a schedule that keeps none).
func (r *Scheduler) State() *ScheduleState {
	if r.s.Name != "plateau" {
		return nil
	}
	st := r.st
	return &st
}

// SetState restores a state taken with State (nil: the start's).
func (r *Scheduler) SetState(st *ScheduleState) error {
	if st == nil {
		r.st = ScheduleState{LR: r.lr}
		return nil
	}
	if r.s.Name != "plateau" {
		return fmt.Errorf("optimizers: a %s schedule keeps no state; the checkpoint has a plateau's", r.s.Name)
	}
	if !(st.LR > 0) || st.Bad < 0 || st.Evals < 0 {
		return fmt.Errorf("optimizers: plateau state: rate %g, %d evaluations without a better score, %d in all", st.LR, st.Bad, st.Evals)
	}
	r.st = *st
	return nil
}
