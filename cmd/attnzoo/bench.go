package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/seq2seq"
)

// benchResult is what `attnzoo bench --json` prints: the fields of
// shared/anchors/toy_reverse_pytorch.py's line, and a few of our own.
type benchResult struct {
	System       string  `json:"system"`
	Dtype        string  `json:"dtype"`
	Threads      int     `json:"threads"` // GOMAXPROCS
	BLAS         string  `json:"blas"`
	BLASThreads  int     `json:"blas_threads"`
	Go           string  `json:"go"`
	Params       int     `json:"params"`
	MsStepMedian float64 `json:"ms_step_median"`
	MsStepMin    float64 `json:"ms_step_min"`
	MsStepMean   float64 `json:"ms_step_mean"`
	DecodeMs     float64 `json:"decode_ms_batch"`
	DecodeSeqS   float64 `json:"decode_seq_s"`
	Beam5Ms      float64 `json:"beam5_ms_batch"`
	Beam5SeqS    float64 `json:"beam5_seq_s"`
	AllocBytes   float64 `json:"alloc_bytes_per_step"`
	Allocs       float64 `json:"allocs_per_step"`
	Loss         float64 `json:"loss_at_last"`
}

// benchOptions size the run: the anchor times training steps 6–55 and 20
// greedy decodings after 3 warm-ups.
type benchOptions struct {
	steps, skip   int // training steps run, and the first ones not timed
	reps, warmups int // decoding repetitions timed, and untimed ones before
	beamReps      int
}

func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("attnzoo bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON line with the fields of the PyTorch anchor script")
	table := fs.Bool("table", false, "with --json, print the table too")
	torch := fs.String("torch", "", "a JSON line from shared/anchors/toy_reverse_pytorch.py to compare with (ratios)")
	opt := benchOptions{}
	fs.IntVar(&opt.steps, "steps", 55, "training steps (the first 5 are not timed)")
	fs.IntVar(&opt.reps, "reps", 20, "greedy decodings timed (after 3 untimed)")
	fs.IntVar(&opt.beamReps, "beam-reps", 10, "beam-5 decodings timed (after 2 untimed)")
	parallel := fs.Int("parallel", 0, "instead: measure how N workers scale (N anchor models one after another, then side by side)")
	parSteps := fs.Int("parallel-steps", 40, "with --parallel, timed training steps per model and phase")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: attnzoo bench [--json [--table]] [--torch PYTORCH.json]")
		fmt.Fprintln(stderr, "       attnzoo bench --parallel N [--parallel-steps S] [--json]")
		fmt.Fprintln(stderr, "Runs the toy-reverse speed anchor (shared/anchors/README.md) through the harness:")
		fmt.Fprintln(stderr, "concat scorer, GRU, Bahdanau decoder, V=32, S=12, T=13, B=64, E=64, H=128, A=128, float32, Adam.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{fmt.Errorf("bench: %w", err)}
	}
	if fs.NArg() > 0 {
		return usagef("bench: unexpected argument %q", fs.Arg(0))
	}
	opt.skip, opt.warmups = 5, 3
	if opt.steps <= opt.skip || opt.reps < 1 || opt.beamReps < 1 {
		return usagef("bench: want --steps > %d, --reps ≥ 1 and --beam-reps ≥ 1", opt.skip)
	}
	if *parallel < 0 || *parSteps < 1 {
		return usagef("bench: want --parallel ≥ 1 and --parallel-steps ≥ 1")
	}
	if *parallel > 0 {
		spareProc(*parallel)
		r, err := runParallel(ctx, *parallel, *parSteps)
		if err != nil {
			return err
		}
		if *asJSON {
			line, _ := json.Marshal(r)
			fmt.Fprintln(stdout, string(line))
		} else {
			fmt.Fprintf(stdout, "GOMAXPROCS %d, BLAS %s: %s\n", runtime.GOMAXPROCS(0), gx.BLAS(), r)
		}
		return nil
	}
	var ref map[string]any
	if *torch != "" {
		data, err := os.ReadFile(*torch)
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		if err := json.Unmarshal(data, &ref); err != nil {
			return fmt.Errorf("bench: %s: not a JSON line of toy_reverse_pytorch.py: %w", *torch, err)
		}
	}
	res, err := runBench(ctx, opt)
	if err != nil {
		return err
	}
	if *asJSON {
		line, _ := json.Marshal(res)
		fmt.Fprintln(stdout, string(line))
	}
	if !*asJSON || *table || ref != nil {
		printBench(stdout, res, ref, *torch)
	}
	return nil
}

// runBench trains the anchor model for opt.steps steps on fresh batches
// (drawn before the clock starts) and times greedy and beam-5 decoding of
// one batch with the trained model.
func runBench(ctx context.Context, opt benchOptions) (*benchResult, error) {
	cfg := seq2seq.AnchorConfig()
	tr, err := anchorTrainer(cfg.Seed)
	if err != nil {
		return nil, err
	}
	defer tr.Cache.Close()
	m := tr.Model
	rng := rand.New(rand.NewPCG(1, 1))
	batches := make([]*seq2seq.Batch, opt.steps)
	for i := range batches {
		batches[i] = seq2seq.AnchorBatch(rng)
	}
	res := &benchResult{System: "attnzoo", Dtype: cfg.Dtype, Threads: runtime.GOMAXPROCS(0), BLAS: gx.BLAS(),
		BLASThreads: gx.BLASThreads(), Go: runtime.Version(), Params: m.NumParams()}

	var times []float64 // ms
	var before, after runtime.MemStats
	for i, b := range batches {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if i == opt.skip {
			runtime.ReadMemStats(&before)
		}
		t0 := time.Now()
		loss, err := tr.Step(b)
		dt := time.Since(t0)
		if err != nil {
			return nil, err
		}
		if i >= opt.skip {
			times = append(times, float64(dt.Nanoseconds())/1e6)
		}
		res.Loss = loss
	}
	runtime.ReadMemStats(&after)
	n := float64(len(times))
	res.AllocBytes = float64(after.TotalAlloc-before.TotalAlloc) / n
	res.Allocs = float64(after.Mallocs-before.Mallocs) / n
	res.MsStepMedian, res.MsStepMin, res.MsStepMean = median(times), slices.Min(times), mean(times)

	src := seq2seq.AnchorBatch(rng)
	src.TgtIn, src.TgtOut = nil, nil
	cache := seq2seq.NewGraphCache(0)
	defer cache.Close()
	timeIt := func(warm, reps int, f func() error) (float64, error) {
		var ts []float64
		for i := 0; i < warm+reps; i++ {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			t0 := time.Now()
			if err := f(); err != nil {
				return 0, err
			}
			if i >= warm {
				ts = append(ts, float64(time.Since(t0).Nanoseconds())/1e6)
			}
		}
		return median(ts), nil
	}
	const maxLen = 12 // + </s>: the anchor's 13 steps
	if res.DecodeMs, err = timeIt(opt.warmups, opt.reps, func() error { _, err := m.Greedy(src, maxLen, cache); return err }); err != nil {
		return nil, err
	}
	if res.Beam5Ms, err = timeIt(2, opt.beamReps, func() error { _, err := m.Beam(src, 5, maxLen, 1, cache); return err }); err != nil {
		return nil, err
	}
	B := float64(src.Size())
	res.DecodeSeqS, res.Beam5SeqS = B/(res.DecodeMs/1e3), B/(res.Beam5Ms/1e3)
	for _, p := range []*float64{&res.MsStepMedian, &res.MsStepMin, &res.MsStepMean, &res.DecodeMs, &res.Beam5Ms, &res.Loss} {
		*p = math.Round(*p*1e3) / 1e3
	}
	for _, p := range []*float64{&res.DecodeSeqS, &res.Beam5SeqS, &res.AllocBytes, &res.Allocs} {
		*p = math.Round(*p*10) / 10
	}
	return res, nil
}

// anchorTrainer is the anchor model (seeded) with the anchor's optimizer:
// Adam, lr 1e-3, no clipping or decay.
func anchorTrainer(seed uint64) (*seq2seq.Trainer, error) {
	cfg := seq2seq.AnchorConfig()
	cfg.Seed = seed
	m, err := seq2seq.New(cfg)
	if err != nil {
		return nil, err
	}
	o, err := seq2seq.NewOptimizer("adam", 1e-3, 0, 0, 0)
	if err != nil {
		return nil, err
	}
	return seq2seq.NewTrainer(m, o, 1), nil
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// printBench prints the result as a table, beside PyTorch's line when given
// (ratios: attnzoo ms/step ÷ PyTorch ms/step; attnzoo seq/s ÷ PyTorch seq/s).
func printBench(w io.Writer, r *benchResult, ref map[string]any, refName string) {
	fmt.Fprintf(w, "toy-reverse anchor: %s, %d params, %s, GOMAXPROCS %d, BLAS %s (%d thread(s)), %s\n",
		r.System, r.Params, r.Dtype, r.Threads, r.BLAS, r.BLASThreads, r.Go)
	num := func(key string) (float64, bool) {
		v, ok := ref[key].(float64)
		return v, ok
	}
	if ref != nil {
		sys, _ := ref["system"].(string)
		th, _ := num("threads")
		fmt.Fprintf(w, "against %s: %s, %v thread(s)\n", refName, sys, th)
	}
	rows := []struct {
		what, key string
		v         float64
		format    string
	}{
		{"train ms/step (median of steps 6–55)", "ms_step_median", r.MsStepMedian, "%.1f"},
		{"train ms/step (min)", "ms_step_min", r.MsStepMin, "%.1f"},
		{"greedy seq/s (batch 64, median of 20)", "decode_seq_s", r.DecodeSeqS, "%.0f"},
		{"greedy ms/batch", "decode_ms_batch", r.DecodeMs, "%.1f"},
		{"beam-5 seq/s", "beam5_seq_s", r.Beam5SeqS, "%.0f"},
		{"beam-5 ms/batch", "beam5_ms_batch", r.Beam5Ms, "%.1f"},
		{"allocated bytes/step", "", r.AllocBytes, "%.0f"},
		{"allocations/step", "", r.Allocs, "%.0f"},
	}
	if ref == nil {
		for _, row := range rows {
			fmt.Fprintf(w, "  %-40s %12s\n", row.what, fmt.Sprintf(row.format, row.v))
		}
		fmt.Fprintf(w, "  %-40s %12s\n", "beam-5 cost ÷ greedy cost", fmt.Sprintf("%.2f×", r.Beam5Ms/r.DecodeMs))
		return
	}
	fmt.Fprintf(w, "  %-40s %12s %12s %8s\n", "", "attnzoo", "pytorch", "ratio")
	for _, row := range rows {
		theirs, ok := num(row.key)
		t, ratio := "—", ""
		if ok {
			t = fmt.Sprintf(row.format, theirs)
			ratio = fmt.Sprintf("%.2f×", row.v/theirs)
		}
		fmt.Fprintf(w, "  %-40s %12s %12s %8s\n", row.what, fmt.Sprintf(row.format, row.v), t, ratio)
	}
	fmt.Fprintf(w, "  %-40s %12s\n", "beam-5 cost ÷ greedy cost", fmt.Sprintf("%.2f×", r.Beam5Ms/r.DecodeMs))
	fmt.Fprintln(w, "  (ratio: attnzoo ÷ pytorch; below 1 is faster for ms, slower for seq/s)")
}
