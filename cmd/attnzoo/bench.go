package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/device"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/seq2seq"
)

// benchResult is what `attnzoo bench --json` prints: the fields of
// bench/pytorch/reverse.py's line, and a few of our own.
type benchResult struct {
	System       string  `json:"system"`
	Dtype        string  `json:"dtype"`
	Threads      int     `json:"threads"` // GOMAXPROCS
	BLAS         string  `json:"blas"`
	BLASThreads  int     `json:"blas_threads"`
	Go           string  `json:"go"`
	Hidden       int     `json:"hidden"`
	Batch        int     `json:"batch"`
	SrcLen       int     `json:"src_len"`
	Vocab        int     `json:"vocab"`
	Embed        int     `json:"embed"`
	Params       int     `json:"params"`
	StepsTimed   int     `json:"steps_timed"`
	DecodeReps   int     `json:"decode_reps"`
	MsStepMedian float64 `json:"ms_step_median"`
	MsStepMin    float64 `json:"ms_step_min"`
	MsStepMean   float64 `json:"ms_step_mean"`
	DecodeMs     float64 `json:"decode_ms_batch"`
	DecodeSeqS   float64 `json:"decode_seq_s"`
	Beam5Ms      float64 `json:"beam5_ms_batch"`
	Beam5SeqS    float64 `json:"beam5_seq_s"`
	AllocBytes   float64 `json:"alloc_bytes_per_step"`
	MinorFaults  float64 `json:"minor_faults_per_step"` // getrusage; −1 where not measured
	Allocs       float64 `json:"allocs_per_step"`
	Loss         float64 `json:"loss_at_last"`
	// On a device (--device): its name and the ops that still run on the
	// host (no kernel yet); where the backend counts its traffic
	// (device.Counter), what a timed training step moved
	// between host and device and the kernels it launched.
	Device        string   `json:"device,omitempty"`
	Counted       bool     `json:"device_counted,omitempty"`
	BytesInStep   float64  `json:"device_bytes_in_per_step,omitempty"`
	BytesOutStep  float64  `json:"device_bytes_out_per_step,omitempty"`
	LaunchesStep  float64  `json:"device_launches_per_step,omitempty"`
	GemmFlopsStep float64  `json:"device_gemm_flops_per_step,omitempty"`
	DeviceHostOps []string `json:"device_host_ops,omitempty"`

	// Of LaunchesStep, the CLBlast calls (each counted as one launch
	// there), and the kernels those calls launched, counted by the
	// bench/clcount shim (make count-launches; absent without it).
	GemmCallsStep  float64  `json:"device_gemm_calls_per_step,omitempty"`
	LibKernelsStep *float64 `json:"device_clblast_kernels_per_step,omitempty"`
}

// benchOptions size the run: the anchor times training steps 6–55 and 20
// greedy decodings after 3 warm-ups.
type benchOptions struct {
	benchSizes
	steps, skip   int // training steps run, and the first ones not timed
	reps, warmups int // decoding repetitions timed, and untimed ones before
	beamReps      int
	device        string // a device choice (backend.ParseSpec)
	trainOnly     bool   // no decoding (counting a step's launches on a slow device)
}

func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("attnzoo bench", stderr,
		"usage: attnzoo bench [--hidden H] [--batch B] [--src-len S] [--vocab V] [--device D] [--threads T] [--json [--table]] [--torch PYTORCH.json]",
		"       attnzoo bench --parallel N [--parallel-steps S] [--json]",
		"       attnzoo bench --table-from RESULTS.jsonl",
		"       attnzoo bench --corpus-table DIR",
		"       attnzoo bench --learning-table DIR",
		"Runs the toy-reverse speed anchor (bench/README.md) through the harness:",
		"concat scorer, GRU, Bahdanau decoder, V=32, S=12, T=13, B=64, E=64, H=128, A=128, float32, Adam;",
		"--hidden, --batch, --src-len and --vocab resize it (bench/pytorch/reverse.py takes the same flags).")
	asJSON := fs.Bool("json", false, "print one JSON line (the fields bench/pytorch/reverse.py prints, and more)")
	table := fs.Bool("table", false, "with --json, print the table too")
	torch := fs.String("torch", "", "compare with `FILE`, a JSON line from bench/pytorch/reverse.py (ratios)")
	tableFrom := fs.String("table-from", "", "instead: print the table of a `FILE` of JSON lines from both systems, one pair per size")
	corpusTable := fs.String("corpus-table", "", "instead: print make bench-corpus's table from its folder `DIR` (bench/README.md)")
	learningTable := fs.String("learning-table", "", "instead: print make bench-learning's table from its folder `DIR` (bench/README.md)")
	opt := benchOptions{}
	opt.benchSizes.flags(fs)
	fs.IntVar(&opt.steps, "steps", 55, "training steps (the first --warmup are not timed)")
	fs.IntVar(&opt.skip, "warmup", 5, "training steps run before the clock starts")
	fs.IntVar(&opt.reps, "reps", 20, "greedy decodings timed (after 3 untimed)")
	fs.IntVar(&opt.beamReps, "beam-reps", 10, "beam-5 decodings timed (after 2 untimed)")
	fs.BoolVar(&opt.trainOnly, "train-only", false, "time the training steps only, no decoding (make count-launches)")
	parallel := fs.Int("parallel", 0, "instead: measure how N workers scale (N anchor models one after another, then side by side)")
	parSteps := fs.Int("parallel-steps", 40, "with --parallel, timed training steps per model and phase")
	dev := fs.String("device", "cpu", "cpu, gpu or opencl:P:D (see attnzoo devices)")
	threads := fs.Int("threads", 1, "threads the matrix products use (OpenBLAS's, or goroutines in the pure-Go build)")
	var prof profiles
	prof.flags(fs)
	if help, err := parseNoArgs(fs, "bench", args); help || err != nil {
		return err
	}
	if *tableFrom != "" {
		return printTableFrom(stdout, *tableFrom)
	}
	if *learningTable != "" {
		return printLearningTable(stdout, *learningTable)
	}
	if *corpusTable != "" {
		return printCorpusTable(stdout, *corpusTable)
	}
	opt.warmups = 3
	if err := opt.benchSizes.check(); err != nil {
		return usagef("bench: %v", err)
	}
	if opt.skip < 0 || opt.steps <= opt.skip || opt.reps < 1 || opt.beamReps < 1 {
		return usagef("bench: want --warmup ≥ 0, --steps > --warmup (%d), --reps ≥ 1 and --beam-reps ≥ 1; got --steps %d", opt.skip, opt.steps)
	}
	if *parallel < 0 || *parSteps < 1 {
		return usagef("bench: want --parallel ≥ 1 and --parallel-steps ≥ 1")
	}
	if err := checkDevice("bench: --device", *dev); err != nil {
		return err
	}
	opt.device = *dev
	if *threads < 1 {
		return usagef("bench: --threads must be ≥ 1, got %d", *threads)
	}
	chooseThreads(*threads, 1)
	if err := prof.start(); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	err := benchMain(ctx, opt, *parallel, *parSteps, *asJSON, *table, *torch, stdout)
	if perr := prof.stop(); err == nil && perr != nil {
		err = fmt.Errorf("bench: %w", perr)
	}
	return err
}

// benchMain is the measurement cmdBench runs between its profiles' start
// and stop.
func benchMain(ctx context.Context, opt benchOptions, parallel, parSteps int, asJSON, table bool, torch string, stdout io.Writer) error {
	if parallel > 0 {
		spareProc(parallel)
		r, err := runParallel(ctx, opt.benchSizes, parallel, parSteps)
		if err != nil {
			return err
		}
		if asJSON {
			line, _ := json.Marshal(r)
			fmt.Fprintln(stdout, string(line))
		} else {
			fmt.Fprintf(stdout, "GOMAXPROCS %d, BLAS %s: %s\n", runtime.GOMAXPROCS(0), gx.BLAS(), r)
		}
		return nil
	}
	var ref map[string]any
	if torch != "" {
		data, err := os.ReadFile(torch)
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		if err := json.Unmarshal(data, &ref); err != nil {
			return fmt.Errorf("bench: %s: not a JSON line of bench/pytorch/reverse.py: %w", torch, err)
		}
	}
	res, err := runBench(ctx, opt)
	if err != nil {
		return err
	}
	if asJSON {
		line, _ := json.Marshal(res)
		fmt.Fprintln(stdout, string(line))
	}
	if !asJSON || table || ref != nil {
		printBench(stdout, res, ref, torch, opt)
	}
	return nil
}

// runBench trains the model for opt.steps steps on fresh batches (drawn
// before the clock starts) and times greedy and beam-5 decoding of one batch
// with the trained model.
func runBench(ctx context.Context, opt benchOptions) (*benchResult, error) {
	cfg := opt.config()
	tr, err := benchTrainer(opt.benchSizes, cfg.Seed)
	if err != nil {
		return nil, err
	}
	defer tr.Cache.Close()
	m := tr.Model
	var counter device.Counter
	if opt.device != "" {
		spec, err := backend.ParseSpec(opt.device)
		if err != nil {
			return nil, err
		}
		dev, err := backend.OpenSpec(spec)
		if err != nil {
			return nil, err
		}
		if dev != nil {
			defer dev.Close()
			if err := m.UseDevice(dev); err != nil {
				return nil, err
			}
			defer m.UseDevice(nil)
			counter, _ = dev.(device.Counter)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	batches := make([]*seq2seq.Batch, opt.steps)
	for i := range batches {
		batches[i] = opt.draw(rng)
	}
	res := &benchResult{System: "attnzoo", Dtype: cfg.Dtype, Threads: runtime.GOMAXPROCS(0), BLAS: gx.BLAS(),
		BLASThreads: gx.BLASThreads(), Go: runtime.Version(), Hidden: cfg.Hidden, Batch: opt.batch,
		SrcLen: opt.srcLen, Vocab: cfg.SrcVocab, Embed: cfg.Embed, Params: m.NumParams(),
		StepsTimed: opt.steps - opt.skip, DecodeReps: opt.reps}

	var times []float64 // ms
	var before, after runtime.MemStats
	var t0, t1 device.Traffic
	var faults0 int64
	for i, b := range batches {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if i == opt.skip {
			faults0 = minorFaults()
			runtime.ReadMemStats(&before)
			if counter != nil {
				t0 = counter.Traffic()
			}
		}
		// Push: on a device the step's loss comes back at the next step's
		// (the host enqueues a step while the device runs the one before)
		t0 := time.Now()
		done, ok, err := tr.Push(b)
		dt := time.Since(t0)
		if err != nil {
			return nil, err
		}
		if i >= opt.skip {
			times = append(times, float64(dt.Nanoseconds())/1e6)
		}
		if ok {
			res.Loss = done.Loss
		}
	}
	if done, ok, err := tr.Flush(); err != nil {
		return nil, err
	} else if ok {
		res.Loss = done.Loss
	}
	faults1 := minorFaults()
	runtime.ReadMemStats(&after)
	n := float64(len(times))
	res.MinorFaults = -1
	if faults0 >= 0 && faults1 >= 0 {
		res.MinorFaults = float64(faults1-faults0) / n
	}
	if d := m.Device(); d != nil {
		res.Device = d.Name()
		res.DeviceHostOps = tr.Cache.HostOps()
	}
	if counter != nil {
		t1 = counter.Traffic()
		res.Counted = true
		res.BytesInStep, res.BytesOutStep = float64(t1.BytesIn-t0.BytesIn)/n, float64(t1.BytesOut-t0.BytesOut)/n
		res.LaunchesStep = float64(t1.Launches-t0.Launches) / n
		res.GemmCallsStep = float64(t1.GemmCalls-t0.GemmCalls) / n
		if t1.LibraryCounted {
			v := float64(t1.LibraryLaunches-t0.LibraryLaunches) / n
			res.LibKernelsStep = &v
		}
		res.GemmFlopsStep = float64(t1.GemmFlops-t0.GemmFlops) / n
	}
	res.AllocBytes = float64(after.TotalAlloc-before.TotalAlloc) / n
	res.Allocs = float64(after.Mallocs-before.Mallocs) / n
	res.MsStepMedian, res.MsStepMin, res.MsStepMean = median(times), slices.Min(times), mean(times)

	if opt.trainOnly {
		roundBench(res)
		return res, nil
	}
	src := opt.draw(rng)
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
	maxLen := opt.srcLen // + </s>: the anchor's 13 steps
	if res.DecodeMs, err = timeIt(opt.warmups, opt.reps, func() error { _, err := m.Greedy(src, maxLen, cache); return err }); err != nil {
		return nil, err
	}
	if res.Beam5Ms, err = timeIt(2, opt.beamReps, func() error {
		_, err := m.Beam(src, seq2seq.BeamOptions{Width: 5, MaxLen: maxLen, Alpha: 1, Cache: cache})
		return err
	}); err != nil {
		return nil, err
	}
	B := float64(src.Size())
	res.DecodeSeqS, res.Beam5SeqS = B/(res.DecodeMs/1e3), B/(res.Beam5Ms/1e3)
	roundBench(res)
	return res, nil
}

// roundBench rounds the times to µs and the rates and counts to tenths.
func roundBench(res *benchResult) {
	for _, p := range []*float64{&res.MsStepMedian, &res.MsStepMin, &res.MsStepMean, &res.DecodeMs, &res.Beam5Ms, &res.Loss} {
		*p = math.Round(*p*1e3) / 1e3
	}
	for _, p := range []*float64{&res.DecodeSeqS, &res.Beam5SeqS, &res.AllocBytes, &res.Allocs, &res.MinorFaults} {
		*p = math.Round(*p*10) / 10
	}
}

// benchTrainer is the anchor model at these sizes (seeded) with the
// anchor's optimizer: Adam, lr 1e-3, no clipping or decay.
func benchTrainer(s benchSizes, seed uint64) (*seq2seq.Trainer, error) {
	cfg := s.config()
	cfg.Seed = seed
	m, err := seq2seq.New(cfg)
	if err != nil {
		return nil, err
	}
	o, err := seq2seq.NewOptimizer(seq2seq.Optimizer{Name: "adam", LR: 1e-3})
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
func printBench(w io.Writer, r *benchResult, ref map[string]any, refName string, opt benchOptions) {
	fmt.Fprintf(w, "toy-reverse anchor (%s): %s, %d params, %s, GOMAXPROCS %d, BLAS %s (%d thread(s)), %s\n",
		opt.benchSizes, r.System, r.Params, r.Dtype, r.Threads, r.BLAS, r.BLASThreads, r.Go)
	num := func(key string) (float64, bool) {
		v, ok := ref[key].(float64)
		return v, ok
	}
	if ref != nil {
		sys, _ := ref["system"].(string)
		th, _ := num("threads")
		fmt.Fprintf(w, "against %s: %s, %v thread(s)\n", refName, sys, th)
		for _, k := range []struct {
			key  string
			ours int
		}{{"hidden", r.Hidden}, {"batch", r.Batch}, {"src_len", r.SrcLen}, {"vocab", r.Vocab}} {
			if v, ok := num(k.key); ok && v != float64(k.ours) {
				fmt.Fprintf(w, "  warning: %s has %s %v, attnzoo %d: not the same workload\n", refName, k.key, v, k.ours)
			}
		}
		if p, ok := num("params"); ok && paramsDiffer(r.Params, p) {
			fmt.Fprintf(w, "  warning: %s has %.0f parameters, attnzoo %d: not the same model\n", refName, p, r.Params)
		}
	}
	rows := []struct {
		what, key string
		v         float64
		format    string
	}{
		{fmt.Sprintf("train ms/step (median of steps %d–%d)", opt.skip+1, opt.steps), "ms_step_median", r.MsStepMedian, "%.1f"},
		{"train ms/step (min)", "ms_step_min", r.MsStepMin, "%.1f"},
		{fmt.Sprintf("greedy seq/s (batch %d, median of %d)", opt.batch, opt.reps), "decode_seq_s", r.DecodeSeqS, "%.0f"},
		{"greedy ms/batch", "decode_ms_batch", r.DecodeMs, "%.1f"},
		{"beam-5 seq/s", "beam5_seq_s", r.Beam5SeqS, "%.0f"},
		{"beam-5 ms/batch", "beam5_ms_batch", r.Beam5Ms, "%.1f"},
		{"allocated bytes/step", "", r.AllocBytes, "%.0f"},
		{"allocations/step", "", r.Allocs, "%.0f"},
		{"minor page faults/step", "", r.MinorFaults, "%.1f"},
	}
	if opt.trainOnly { // no decoding rows
		rows = append(rows[:2], rows[6:]...)
	}
	if r.Device != "" && !r.Counted {
		fmt.Fprintf(w, "  device %s (its traffic is not counted)\n", r.Device)
	}
	if r.Counted {
		fmt.Fprintf(w, "  device %s: per training step %.0f bytes in, %.0f bytes out, %.0f kernel launches (%.0f of them CLBlast calls), %.3g GEMM FLOP\n",
			r.Device, r.BytesInStep, r.BytesOutStep, r.LaunchesStep, r.GemmCallsStep, r.GemmFlopsStep)
		if r.LibKernelsStep != nil {
			fmt.Fprintf(w, "  with CLBlast's own kernels counted (bench/clcount): %.0f of ours + %.0f of CLBlast's = %.0f kernel launches per step\n",
				r.LaunchesStep-r.GemmCallsStep, *r.LibKernelsStep, r.LaunchesStep-r.GemmCallsStep+*r.LibKernelsStep)
		}
	}
	if len(r.DeviceHostOps) > 0 {
		fmt.Fprintf(w, "  ops still on the host (no device kernel yet): %s\n", strings.Join(r.DeviceHostOps, ", "))
	}
	if ref == nil {
		for _, row := range rows {
			fmt.Fprintf(w, "  %-40s %12s\n", row.what, fmt.Sprintf(row.format, row.v))
		}
		if !opt.trainOnly {
			fmt.Fprintf(w, "  %-40s %12s\n", "beam-5 cost ÷ greedy cost", fmt.Sprintf("%.2f×", r.Beam5Ms/r.DecodeMs))
		}
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
