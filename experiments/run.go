package experiments

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/attnzoo/attnzoo/internal/device"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/attnzoo/attnzoo/metrics"
	"github.com/attnzoo/attnzoo/seq2seq"
)

// batchStream separates the batch sampler's generator from the model's
// initialisation and the dropout masks (seq2seq seeds those with the run's
// seed and other stream words), so no two of them ever coincide.
const batchStream = 0xba7c4e5a3f1d2b69

// ErrInterrupted is returned by a run stopped by its context after it
// wrote a checkpoint.
var ErrInterrupted = errors.New("interrupted")

// Final is a finished run's final.json.
type Final struct {
	Run          string             `json:"run"`
	Seed         int64              `json:"seed"`
	Point        map[string]any     `json:"point"`
	Metrics      map[string]float64 `json:"metrics"`
	Steps        int                `json:"steps"`
	TrainSeconds float64            `json:"train_seconds"`
	StepsPerSec  float64            `json:"steps_per_sec"`
	// TestDecodeSeconds is the wall time of the greedy decoding of the test
	// split (its scoring included), bench-corpus's decoding time.
	TestDecodeSeconds float64           `json:"test_decode_seconds,omitempty"`
	Params            int               `json:"params"`
	Memory            *Estimate         `json:"memory_estimate,omitempty"` // what the run was estimated to hold (plan.go)
	Arena             *seq2seq.ArenaUse `json:"arena,omitempty"`           // what the run's graphs held at its end (the engine's count)
	Provenance        *Provenance       `json:"provenance,omitempty"`      // absent in runs finished before it was recorded
	StoppedAt         int               `json:"stopped_at,omitempty"`      // the step early stopping ([train] patience) ended training at
	Selected          *Selected         `json:"selected,omitempty"`        // the checkpoint the test metrics come from ([train] select)
}

// Progress is one update of a run in progress.
type Progress struct {
	Run         string
	Step, Steps int
	Loss        float64
	Elapsed     time.Duration
	Done        bool
	Err         error
}

// runState is a run's checkpoint: the model's, with the optimizer's state
// and the run's own (runClock) as its Run. Runs written before checkpoints
// had a safetensors file kept it as one JSON file "checkpoint" of this
// struct, which still loads.
type runState struct {
	Step  int                    `json:"step"`
	Model *seq2seq.Checkpoint    `json:"model"`
	Opt   seq2seq.OptimizerState `json:"optimizer"`
	runClock
}

// runClock is a run's state beyond the model and the optimizer.
type runClock struct {
	TrainSeconds float64 `json:"train_seconds"`
	WindowLoss   float64 `json:"window_loss"` // training loss summed since the last evaluation
	WindowN      int     `json:"window_n"`
	// model selection ([train] select): the best dev score so far, its
	// step, and the evaluations since it (for [train] patience)
	BestScore float64 `json:"best_score,omitempty"`
	BestStep  int     `json:"best_step,omitempty"`
	SinceBest int     `json:"since_best,omitempty"`
}

// checkpointFile is a run's checkpoint (with the safetensors file it
// names); oldCheckpointFile the single JSON file of older runs.
const checkpointFile, oldCheckpointFile = "checkpoint.json", "checkpoint"

// evalLine is one line of metrics.jsonl.
type evalLine struct {
	Step          int     `json:"step"`
	Loss          float64 `json:"loss"`
	LR            float64 `json:"lr"`
	DevTokenAcc   float64 `json:"dev_token_acc"`
	DevExactMatch float64 `json:"dev_exact_match"`
	DevBLEU       float64 `json:"dev_bleu"`
	Seconds       float64 `json:"seconds"`
}

// runConfigTOML is config.toml: the resolved settings of one run.
type runConfigTOML struct {
	Run    string         `toml:"run"`
	Seed   int64          `toml:"seed"`
	Dtype  string         `toml:"dtype"`
	Task   map[string]any `toml:"task"`
	Model  Model          `toml:"model"`
	Train  Train          `toml:"train"`
	Decode Decode         `toml:"decode"`
	Eval   Eval           `toml:"eval"`
	// ScorerSettings are Model.Settings (the scorers' own [model] keys).
	ScorerSettings map[string]float64 `toml:"scorer_settings,omitempty"`
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return seq2seq.WriteFileAtomic(path, append(data, '\n'))
}

// Execute trains and evaluates one run in dir (runs/<id>), resuming from a
// checkpoint there if one exists. A run whose final.json exists is not
// redone.
func (e *Experiment) Execute(ctx context.Context, r *Run, dir string, report func(Progress)) (*Final, error) {
	if report == nil {
		report = func(Progress) {}
	}
	if err := checkResumable(r, dir); err != nil {
		return nil, err
	}
	if f, err := ReadFinal(dir); err == nil {
		return f, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cfgText, _, err := r.runConfig()
	if err != nil {
		return nil, err
	}
	if err := seq2seq.WriteFileAtomic(filepath.Join(dir, "config.toml"), cfgText); err != nil {
		return nil, err
	}
	prov := buildProvenance()
	prov.Device, prov.ConfigHash = e.Device, configHash(cfgText)

	data, err := loadCorpus(ctx, r)
	if ctx.Err() != nil {
		return nil, ErrInterrupted // before training: nothing to save
	}
	if err != nil {
		return nil, fmt.Errorf("experiments: run %s: %w", r.ID, err)
	}
	maxLen := r.Decode.MaxLen
	if maxLen == 0 {
		maxLen = 2*data.maxSrc() + 10
	}
	mcfg := r.Model.Config
	mcfg.Dtype, mcfg.Seed, mcfg.Lambda = r.Dtype, uint64(r.Seed), r.Train.Lambda
	if err := data.configure(&mcfg); err != nil {
		return nil, fmt.Errorf("experiments: run %s: %w", r.ID, err)
	}
	model, err := seq2seq.New(mcfg)
	if err != nil {
		return nil, fmt.Errorf("experiments: run %s: %w", r.ID, err)
	}
	opt, err := seq2seq.NewOptimizer(seq2seq.Optimizer{Name: r.Train.Optimizer, LR: r.Train.LR, Clip: r.Train.Clip, Decay: r.Train.LRDecay, DecayEvery: r.Train.LRDecayEvery})
	if err != nil {
		return nil, err
	}
	ckPath := filepath.Join(dir, checkpointFile)
	metricsPath := filepath.Join(dir, "metrics.jsonl")
	start, trainSeconds := 0, 0.0
	var windowLoss float64
	windowN := 0
	var lines []evalLine
	var sel selection
	if saved, st, err := readState(dir); err == nil {
		if a, b := fmt.Sprintf("%+v", st.Model.Config), fmt.Sprintf("%+v", model.Cfg); a != b {
			return nil, fmt.Errorf("experiments: %s was trained with another model configuration than the experiment file now gives:\n  checkpoint: %s\n  file:       %s\nresume with the file it was started with, or use another --out", ckPath, a, b)
		}
		model = saved
		if err := opt.SetState(st.Opt, model.Params()); err != nil {
			return nil, fmt.Errorf("experiments: %s: %w", ckPath, err)
		}
		start, trainSeconds = st.Step, st.TrainSeconds
		windowLoss, windowN = st.WindowLoss, st.WindowN
		sel = selection{best: st.BestScore, step: st.BestStep, since: st.SinceBest}
		lines, _ = readLines(metricsPath, start)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := writeLines(metricsPath, lines); err != nil {
		return nil, err
	}

	// a device of the run's own: its context and command queue (runs side
	// by side share a GPU through their own queues)
	if spec, err := device.ParseSpec(e.Device); err != nil {
		return nil, err
	} else if be, err := device.OpenBackend(spec); err != nil {
		return nil, fmt.Errorf("experiments: run %s: %w", r.ID, err)
	} else if be != nil {
		defer be.Close()
		if err := model.To(be); err != nil {
			return nil, fmt.Errorf("experiments: run %s: %w", r.ID, err)
		}
		defer model.To(nil)
	}
	tr := seq2seq.NewTrainer(model, opt, uint64(r.Seed))
	tr.Steps = start
	defer tr.Cache.Close()
	evalCache := tr.Cache.Share(0) // one arena: training and evaluation run in turn
	defer evalCache.Close()
	tb, err := e.openBoard(dir, start)
	if err != nil {
		return nil, err
	}
	defer tb.close()
	saved := start
	save := func(step int) error {
		sv, tv := data.vocabs()
		clock, err := json.Marshal(runClock{TrainSeconds: trainSeconds, WindowLoss: windowLoss, WindowN: windowN,
			BestScore: sel.best, BestStep: sel.step, SinceBest: sel.since})
		if err != nil {
			return err
		}
		ost, err := opt.State()
		if err != nil {
			return err
		}
		ck := seq2seq.Checkpoint{SrcVocab: sv, TgtVocab: tv, Step: step, Optimizer: &ost, Run: clock}
		if err := model.Save(ckPath, ck); err != nil {
			return fmt.Errorf("experiments: run %s: %w", r.ID, err)
		}
		saved = step
		os.Remove(filepath.Join(dir, oldCheckpointFile)) // an older run's checkpoint, now replaced
		return nil
	}
	t0 := time.Now()
	stoppedAt := 0
	for step := start + 1; step <= r.Train.Steps; step++ {
		if sel.stop(r.Train.Patience) { // a resumed run that had stopped early
			stoppedAt = step - 1
			break
		}
		if ctx.Err() != nil {
			trainSeconds += time.Since(t0).Seconds()
			if err := save(step - 1); err != nil {
				return nil, err
			}
			return nil, ErrInterrupted
		}
		rng := rand.New(rand.NewPCG(uint64(r.Seed)^batchStream, uint64(step)))
		idx := make([]int, r.Train.Batch)
		for i := range idx {
			idx[i] = rng.IntN(data.trainLen())
		}
		b, err := data.trainBatch(idx)
		if err != nil {
			return nil, err
		}
		if q := r.Train.Bucket; q > 0 {
			b.PadTo(bucketLen(b.SrcLen(), q, model.Cfg.MaxSrcLen), bucketLen(b.TgtLen(), q, 0))
		}
		tr.Reseed(uint64(r.Seed), uint64(step))
		loss, err := tr.Step(b)
		if err != nil {
			fail := map[string]any{"run": r.ID, "step": step, "error": err.Error(), "last_checkpoint_step": saved}
			writeJSON(filepath.Join(dir, "failed.json"), fail)
			return nil, fmt.Errorf("experiments: run %s: %w (the last good checkpoint is kept)", r.ID, err)
		}
		windowLoss += loss
		windowN++
		if err := tb.trainStep(step, loss, opt.Rate()); err != nil {
			return nil, err
		}
		if step%r.Train.EvalEvery == 0 || step == r.Train.Steps {
			// train_seconds counts training steps only: the clock stops for
			// the dev evaluation and the checkpoint
			trainSeconds += time.Since(t0).Seconds()
			elapsed := trainSeconds
			ev, err := data.evaluate(model, "dev", r.Train.EvalSize, r.Train.Batch, maxLen, 1, r.Decode.Alpha, evalCache, 0, dir)
			if ctx.Err() != nil {
				// cut off mid-evaluation: the last checkpoint stands, and
				// --resume redoes these steps exactly
				return nil, ErrInterrupted
			}
			if err != nil {
				return nil, fmt.Errorf("experiments: run %s: dev evaluation at step %d: %w", r.ID, step, err)
			}
			line := evalLine{Step: step, Loss: windowLoss / float64(windowN), LR: opt.Rate(),
				DevTokenAcc: ev.metrics["token_acc"], DevExactMatch: ev.metrics["exact_match"], DevBLEU: ev.metrics["bleu"], Seconds: elapsed}
			lines = append(lines, line)
			windowLoss, windowN = 0, 0
			if err := tb.dev(step, ev.metrics); err != nil {
				return nil, err
			}
			if err := writeLines(metricsPath, lines); err != nil {
				return nil, err
			}
			if r.Train.Select != "" && sel.observe(step, ev.metrics[r.Train.Select]) {
				// the best on dev so far: kept apart, for the test split
				if err := saveBest(model, data, step, filepath.Join(dir, bestFile)); err != nil {
					return nil, fmt.Errorf("experiments: run %s: %w", r.ID, err)
				}
			}
			if err := save(step); err != nil {
				return nil, err
			}
			t0 = time.Now()
			if sel.stop(r.Train.Patience) {
				stoppedAt = step
				break
			}
		}
		report(Progress{Run: r.ID, Step: step, Steps: r.Train.Steps, Loss: loss, Elapsed: time.Duration((trainSeconds + time.Since(t0).Seconds()) * float64(time.Second))})
	}
	trainSeconds += time.Since(t0).Seconds()
	trained := r.Train.Steps
	if stoppedAt > 0 {
		trained = stoppedAt
	}
	if r.Train.Select != "" {
		// the test split is scored with the checkpoint best on dev, on the
		// host, through graphs of its own in the run's arena
		best, _, err := seq2seq.Load(filepath.Join(dir, bestFile))
		if err != nil {
			return nil, fmt.Errorf("experiments: run %s: the best checkpoint: %w", r.ID, err)
		}
		bestCache := tr.Cache.Share(0)
		defer bestCache.Close()
		model, evalCache = best, bestCache
	}

	// final evaluation on test: greedy, and the configured beam (the
	// checkpoint of the last step is written: an interrupted evaluation
	// is redone whole by --resume)
	t0 = time.Now()
	ev, err := data.evaluate(model, "test", 1<<30, r.Train.Batch, maxLen, 1, r.Decode.Alpha, evalCache, r.Decode.Examples, dir)
	testDecodeSeconds := time.Since(t0).Seconds()
	if ctx.Err() != nil {
		return nil, ErrInterrupted
	}
	if err != nil {
		return nil, err
	}
	m := ev.metrics
	nll, toks := 0.0, 0
	batches, err := data.scoringBatches("test", r.Train.Batch)
	if err != nil {
		return nil, err
	}
	for _, b := range batches {
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
		l, n, err := model.NLL(b, evalCache)
		if err != nil {
			return nil, err
		}
		nll, toks = nll+l, toks+n
	}
	if m["perplexity"], err = metrics.Perplexity(nll, toks); err != nil {
		return nil, err
	}
	// alignment on the reference (align.go): aer, loc_peak, loc_mass and
	// their baselines
	al, err := data.alignment(model, "test", r.Train.Batch, r.Eval.AlignShift, evalCache, dir)
	if ctx.Err() != nil {
		return nil, ErrInterrupted
	}
	if err != nil {
		return nil, fmt.Errorf("experiments: run %s: alignment on the reference: %w", r.ID, err)
	}
	for k, v := range al {
		m[k] = v
	}
	if r.Decode.Beam > 1 {
		evb, err := data.evaluate(model, "test", 1<<30, r.Train.Batch, maxLen, r.Decode.Beam, r.Decode.Alpha, evalCache, 0, dir)
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
		if err != nil {
			return nil, err
		}
		for k, v := range evb.metrics {
			m[k+"_beam"] = v
		}
	}
	if err := finiteMetrics(m); err != nil {
		// a model that diverged without its loss overflowing (a loss of
		// 1e30 is finite): the run fails, named, as one whose loss did
		fail := map[string]any{"run": r.ID, "step": r.Train.Steps, "error": err.Error(), "last_checkpoint_step": saved}
		writeJSON(filepath.Join(dir, "failed.json"), fail)
		return nil, fmt.Errorf("experiments: run %s: %w (the last checkpoint is kept)", r.ID, err)
	}
	if err := writeAlignments(filepath.Join(dir, "alignments.jsonl"), ev.examples); err != nil {
		return nil, err
	}
	if err := tb.final(r.Train.Steps, m, ev.examples, dir); err != nil {
		return nil, err
	}
	point := map[string]any{}
	for _, a := range r.Point {
		point[a.Key] = a.Value
	}
	f := &Final{Run: r.ID, Seed: r.Seed, Point: point, Metrics: m, Steps: trained, StoppedAt: stoppedAt,
		TrainSeconds: trainSeconds, TestDecodeSeconds: testDecodeSeconds, Params: model.NumParams(), Provenance: &prov}
	est := e.runEstimate(r)
	f.Memory = &est
	if use, ok := tr.Cache.ArenaUse(); ok {
		f.Arena = &use
	}
	if r.Train.Select != "" {
		f.Selected = &Selected{Metric: "dev_" + r.Train.Select, Step: sel.step, Score: sel.best}
	}
	if trainSeconds > 0 {
		f.StepsPerSec = float64(trained) / trainSeconds
	}
	if err := writeJSON(filepath.Join(dir, "final.json"), f); err != nil {
		return nil, err
	}
	os.Remove(filepath.Join(dir, "failed.json"))
	report(Progress{Run: r.ID, Step: r.Train.Steps, Steps: r.Train.Steps, Done: true})
	return f, nil
}

// finiteMetrics refuses a test metric that is NaN or infinite (JSON has no
// such numbers): the perplexity of a model that gives the test tokens a
// mean NLL above ~709 nats overflows to +Inf.
func finiteMetrics(m map[string]float64) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if v := m[k]; math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("test %s is %v: the model diverged", k, v)
		}
	}
	return nil
}

// ReadFinal reads a run folder's final.json.
func ReadFinal(dir string) (*Final, error) {
	data, err := os.ReadFile(filepath.Join(dir, "final.json"))
	if err != nil {
		return nil, err
	}
	var f Final
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("experiments: %s: %w", filepath.Join(dir, "final.json"), err)
	}
	return &f, nil
}

// readState loads a run folder's checkpoint: checkpoint.json with its
// safetensors file, or else an older run's single JSON file. An error
// wrapping os.ErrNotExist means the run has neither.
func readState(dir string) (*seq2seq.Model, *runState, error) {
	path := filepath.Join(dir, checkpointFile)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return readOldState(filepath.Join(dir, oldCheckpointFile))
		}
		return nil, nil, fmt.Errorf("experiments: %w", err)
	}
	m, ck, err := seq2seq.Load(path)
	if err != nil {
		return nil, nil, fmt.Errorf("experiments: %w", err) // not ErrNotExist: a missing tensors file is an error
	}
	st := &runState{Step: ck.Step, Model: ck}
	if ck.Optimizer != nil {
		st.Opt = *ck.Optimizer
	}
	if err := json.Unmarshal(ck.Run, &st.runClock); err != nil {
		return nil, nil, fmt.Errorf("experiments: %s: run: %w", path, err)
	}
	return m, st, nil
}

// readOldState reads the single JSON checkpoint of a run written before
// checkpoints had a safetensors file.
func readOldState(path string) (*seq2seq.Model, *runState, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("experiments: %s has no %s: %w", filepath.Dir(path), checkpointFile, err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("experiments: %w", err)
	}
	var st runState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, nil, fmt.Errorf("experiments: %s: %w", path, err)
	}
	if st.Model == nil {
		return nil, nil, fmt.Errorf("experiments: %s: no model in checkpoint", path)
	}
	m, err := seq2seq.FromCheckpoint(st.Model)
	if err != nil {
		return nil, nil, fmt.Errorf("experiments: %s: %w", path, err)
	}
	return m, &st, nil
}

func readLines(path string, upTo int) ([]evalLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []evalLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l evalLine
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		if l.Step <= upTo {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

func writeLines(path string, lines []evalLine) error {
	var b bytes.Buffer
	for _, l := range lines {
		data, err := json.Marshal(l)
		if err != nil {
			return err
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	return seq2seq.WriteFileAtomic(path, b.Bytes())
}

// ReadMetrics reads a run's metrics.jsonl (for learning curves).
func ReadMetrics(dir string) ([]map[string]float64, error) {
	data, err := os.ReadFile(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		return nil, err
	}
	var out []map[string]float64
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		m := map[string]float64{}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			return nil, fmt.Errorf("experiments: %s: %w", filepath.Join(dir, "metrics.jsonl"), err)
		}
		out = append(out, m)
	}
	return out, nil
}

// bucketLen rounds n up to a multiple of q, but not past limit (when limit
// ≥ n > 0: the location scorer's longest source), so training batches come
// in a few shapes and share compiled graphs.
func bucketLen(n, q, limit int) int {
	r := (n + q - 1) / q * q
	if limit >= n && r > limit {
		return limit
	}
	return r
}
