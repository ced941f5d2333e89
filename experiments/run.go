package experiments

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/attnzoo/attnzoo/internal/backend"
	"math"
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
	// BLEUSignature is sacreBLEU's signature of the "bleu" metrics (and
	// "bleu_beam"): how they were computed (runBLEUSignature).
	BLEUSignature string `json:"bleu_signature,omitempty"`
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
	// PatienceMark is selection.mark, the score of the last improvement
	// patience counted ([train] min_delta); absent in checkpoints written
	// before min_delta: the best score.
	PatienceMark *float64 `json:"patience_mark,omitempty"`
}

// checkpointFile is a run's checkpoint (with the safetensors file it
// names); oldCheckpointFile the single JSON file of older runs.
const checkpointFile, oldCheckpointFile = "checkpoint.json", "checkpoint"

// evalLine is one line of metrics.jsonl.
type evalLine struct {
	Step          int     `json:"step"`
	Loss          float64 `json:"loss"`
	LR            float64 `json:"lr"` // the rate of the updates after the evaluation (optimizers.Schedule)
	DevTokenAcc   float64 `json:"dev_token_acc"`
	DevExactMatch float64 `json:"dev_exact_match"`
	DevBLEU       float64 `json:"dev_bleu"`
	// dev_loss and dev_aer: only for [train] select = "loss" or "aer"
	// (devForced)
	DevLoss *float64 `json:"dev_loss,omitempty"`
	DevAER  *float64 `json:"dev_aer,omitempty"`
	Seconds float64  `json:"seconds"`
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
	// EncoderSettings are Model.EncoderSettings (the encoder's own [model]
	// keys), as an experiment file writes them: whole numbers as integers,
	// one-number settings as numbers.
	EncoderSettings map[string]any `toml:"encoder_settings,omitempty"`
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
// redone. It runs in four steps: prepare (the folder, the corpus, the
// model and optimizer), resume (a checkpoint's state), train (to the last
// step, evaluating on dev and saving a checkpoint every eval_every steps)
// and finish (the test split, final.json).
func (e *Experiment) Execute(ctx context.Context, r *Run, dir string, report func(Progress)) (*Final, error) {
	return e.execute(ctx, r, dir, report, 0)
}

// execute is Execute by the sweep's worker number worker: device = "gpu"
// on a machine with several GPUs gives each worker its own (backend.Spec).
func (e *Experiment) execute(ctx context.Context, r *Run, dir string, report func(Progress), worker int) (*Final, error) {
	if report == nil {
		report = func(Progress) {}
	}
	if err := checkResumable(r, dir); err != nil {
		return nil, err
	}
	if f, err := ReadFinal(dir); err == nil {
		return f, nil
	}
	x, err := e.prepare(ctx, r, dir)
	if err != nil {
		return nil, err
	}
	x.worker = worker
	defer x.close()
	if err := x.resume(); err != nil {
		return nil, err
	}
	if err := x.train(ctx, report); err != nil {
		return nil, x.failAfter(err)
	}
	f, err := x.finish(ctx, report)
	if err != nil {
		return nil, x.failAfter(err)
	}
	return f, nil
}

// execution is one run being executed: what prepare makes, resume
// restores, train advances and finish reports on.
type execution struct {
	e    *Experiment
	r    *Run
	dir  string
	prov Provenance

	data   corpus
	maxLen int // the decoding limit: [decode] max_len, or twice the longest source + 10
	model  *seq2seq.Model
	opt    *seq2seq.Optimizer

	start     int      // the step training starts after: a checkpoint's, or 0
	clock     runClock // the training time and the loss window (the selection is sel)
	sel       selection
	lines     []evalLine     // metrics.jsonl
	trainAttn []trainingLine // training_attention.jsonl (explore.go)
	saved     int            // the step of the last checkpoint
	stoppedAt int            // the step early stopping ended training at; 0: it did not

	tr        *seq2seq.Trainer
	loss      float64             // the last training loss that came back, for the progress line
	evalCache *seq2seq.GraphCache // the dev and test evaluations' graphs
	tb        *board
	closers   []func() // run by close, last first
	failed    bool     // failed.json was written
	worker    int      // the sweep's worker executing it
}

func (x *execution) close() {
	for i := len(x.closers) - 1; i >= 0; i-- {
		x.closers[i]()
	}
}

// errorf is an error of the run, named.
func (x *execution) errorf(format string, a ...any) error {
	return fmt.Errorf("experiments: run %s: "+format, append([]any{x.r.ID}, a...)...)
}

func (x *execution) path(name string) string { return filepath.Join(x.dir, name) }

// prepare writes the run folder's config.toml and loads the corpus, and
// makes the model and the optimizer with their first state.
func (e *Experiment) prepare(ctx context.Context, r *Run, dir string) (*execution, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	cfgText, _, err := r.runConfig()
	if err != nil {
		return nil, err
	}
	if err := seq2seq.WriteFileAtomic(filepath.Join(dir, "config.toml"), cfgText); err != nil {
		return nil, err
	}
	x := &execution{e: e, r: r, dir: dir, prov: buildProvenance()}
	if onExecution != nil {
		onExecution(x)
	}
	x.prov.Device, x.prov.ConfigHash = e.Device, configHash(cfgText)
	x.data, err = loadCorpus(ctx, r)
	if ctx.Err() != nil {
		return nil, ErrInterrupted // before training: nothing to save
	}
	if err != nil {
		return nil, x.errorf("%w", err)
	}
	x.maxLen = r.Decode.MaxLen
	if x.maxLen == 0 {
		x.maxLen = 2*x.data.maxSrc() + 10
	}
	mcfg := r.Model.Config
	mcfg.Dtype, mcfg.Seed = r.Dtype, uint64(r.Seed)
	r.Train.intoModel(&mcfg)
	if err := x.data.configure(&mcfg); err != nil {
		return nil, x.errorf("%w", err)
	}
	if x.model, err = seq2seq.New(mcfg); err != nil {
		return nil, x.errorf("%w", err)
	}
	t := r.Train
	x.opt, err = seq2seq.NewOptimizer(seq2seq.Optimizer{Name: t.Optimizer, LR: t.LR, Clip: t.Clip, Schedule: t.schedule()})
	return x, err
}

// resume continues from the run folder's checkpoint, when it has one: the
// model, the optimizer's state, the clock, the model selection and the
// metrics.jsonl (and training_attention.jsonl) lines up to its step. A
// checkpoint of another model configuration is an error that names the
// keys that differ.
func (x *execution) resume() error {
	saved, st, err := readState(x.dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return x.badCheckpoint(err)
	}
	if err == nil {
		cfg := st.Model.Config
		if cfg.InitEmbed == "" && cfg.InitWeights == "" {
			// written before [model] init_embed and init_weights: the
			// initialisation only drew step 0's weights, and the checkpoint
			// holds later ones, so the run goes on as it would have
			cfg.InitEmbed, cfg.InitWeights = x.model.Cfg.InitEmbed, x.model.Cfg.InitWeights
		}
		if cfg.Layers == 0 { // written before [model] layers: one layer
			cfg.Layers = 1
		}
		if diff := modelDiff(cfg, x.model.Cfg); len(diff) > 0 {
			return fmt.Errorf("experiments: %s was trained with another model configuration than the experiment file now gives (checkpoint → file):\n  %s\nresume with the file it was started with, or use another --out",
				x.path(checkpointFile), strings.Join(diff, "\n  "))
		}
		x.model = saved
		if err := x.opt.SetState(st.Opt, x.model.Params()); err != nil {
			return fmt.Errorf("experiments: %s: %w", x.path(checkpointFile), err)
		}
		x.start, x.clock = st.Step, st.runClock
		x.sel = selection{best: st.BestScore, step: st.BestStep, mark: st.BestScore, since: st.SinceBest}
		if st.PatienceMark != nil {
			x.sel.mark = *st.PatienceMark
		}
		if x.lines, err = readLines(x.path("metrics.jsonl"), x.start); err != nil {
			return fmt.Errorf("%w: the checkpoint at step %d cannot resume its learning curve from it; restore the file, or train the run again from step 0 with another --out", err, x.start)
		}
		if x.trainAttn, err = readTrainingLines(x.path(trainingFile), x.start); err != nil {
			return err
		}
	}
	x.saved = x.start
	if err := writeJSONL(x.path(trainingFile), x.trainAttn); err != nil {
		return err
	}
	return writeJSONL(x.path("metrics.jsonl"), x.lines)
}

// badCheckpoint is the error of a run whose checkpoint cannot be trusted
// (err says why): it says so, names the best checkpoint when one is kept
// and whole ([train] select's best.json, which holds no optimizer state to
// train on from), and how to train the run again from step 0.
func (x *execution) badCheckpoint(err error) error {
	offer := "no earlier checkpoint is kept"
	if _, ck, berr := seq2seq.Load(x.path(bestFile)); berr == nil {
		offer = fmt.Sprintf("its best checkpoint, %s (step %d), is whole: `attnzoo decode` reads it, but it holds no optimizer state to train on from", x.path(bestFile), ck.Step)
	}
	return x.errorf("its checkpoint is bad, and it was not trained on: %w\n  %s; to train the run again from step 0, remove %s and %s and rerun with --resume",
		err, offer, x.path(checkpointFile), x.path("checkpoint-*.safetensors"))
}

// keptNote says which checkpoint a failed run leaves: the one of the last
// step saved (Save writes only finite parameters), or none.
func (x *execution) keptNote() string {
	if x.saved == 0 {
		return "no checkpoint was written before it"
	}
	return fmt.Sprintf("the checkpoint of step %d is kept", x.saved)
}

// openBackend opens a run's device (backend.OpenSpec); a test replaces
// it to see which device each worker asks for.
var openBackend = backend.OpenSpec

// onDevice opens the experiment's device for this run (its own context
// and command queue: runs side by side share a GPU through their own
// queues) and moves the model there, and makes the trainer, its graph
// caches and the TensorBoard writer.
func (x *execution) onDevice() error {
	spec, err := backend.ParseSpec(x.e.Device)
	if err != nil {
		return err
	}
	spec.Worker = x.worker
	be, err := openBackend(spec)
	if err != nil {
		return x.errorf("%w", err)
	}
	if be != nil {
		x.closers = append(x.closers, func() { be.Close() })
		// the moments on the device go before it closes (after the model)
		x.closers = append(x.closers, func() { x.opt.FreeDevice() })
		if err := x.model.To(be); err != nil {
			return x.errorf("%w", err)
		}
		m := x.model
		x.closers = append(x.closers, func() { m.To(nil) })
	}
	x.tr = seq2seq.NewTrainer(x.model, x.opt, uint64(x.r.Seed))
	x.tr.Steps = x.start
	x.closers = append(x.closers, x.tr.Cache.Close)
	x.evalCache = x.tr.Cache.Share(0) // one arena: training and evaluation run in turn
	x.closers = append(x.closers, x.evalCache.Close)
	x.tb, err = x.e.openBoard(x.dir, x.start)
	if err != nil {
		return err
	}
	x.closers = append(x.closers, func() { x.tb.close() })
	return nil
}

// train trains from the step after start to [train] steps (or until early
// stopping), evaluating on dev and saving a checkpoint every eval_every
// steps and at the last; stopped by ctx, it saves one and returns
// ErrInterrupted.
func (x *execution) train(ctx context.Context, report func(Progress)) error {
	if err := x.onDevice(); err != nil {
		return err
	}
	r := x.r
	t0 := time.Now()
	for step := x.start + 1; step <= r.Train.Steps; step++ {
		if x.sel.stop(r.Train.Patience) { // a resumed run that had stopped early
			x.stoppedAt = step - 1
			break
		}
		if ctx.Err() != nil {
			if err := x.flush(step - 1); err != nil {
				return err
			}
			x.clock.TrainSeconds += time.Since(t0).Seconds()
			if err := x.save(step - 1); err != nil {
				return err
			}
			return ErrInterrupted
		}
		if err := x.step(step); err != nil {
			return err
		}
		if step%r.Train.EvalEvery == 0 || step == r.Train.Steps {
			if err := x.flush(step); err != nil { // the window ends with this step's loss
				return err
			}
			// train_seconds counts training steps only: the clock stops for
			// the dev evaluation and the checkpoint
			x.clock.TrainSeconds += time.Since(t0).Seconds()
			if err := x.evalDev(ctx, step); err != nil {
				return err
			}
			t0 = time.Now()
			if x.sel.stop(r.Train.Patience) {
				x.stoppedAt = step
				break
			}
		}
		report(Progress{Run: r.ID, Step: step, Steps: r.Train.Steps, Loss: x.loss, Elapsed: time.Duration((x.clock.TrainSeconds + time.Since(t0).Seconds()) * float64(time.Second))})
	}
	x.clock.TrainSeconds += time.Since(t0).Seconds()
	return x.flush(x.tr.Steps)
}

// step trains on one batch, drawn from the step's own generator (so a
// resumed run draws what an uninterrupted one would). On a device the step
// is enqueued and the loss that comes back is the step before's
// (seq2seq.Trainer.Push): each loss is recorded as it comes, under its own
// step. A failed step writes failed.json.
func (x *execution) step(step int) error {
	r := x.r
	idx, err := x.drawBatch(step)
	if err != nil {
		return x.errorf("step %d: %w", step, err)
	}
	b, err := x.data.trainBatch(idx)
	if err != nil {
		return err
	}
	if r.Train.Bucket > 0 {
		b.PadTo(x.rounded(b.SrcLen(), b.TgtLen()))
	}
	x.tr.Reseed(uint64(r.Seed), uint64(step))
	done, ok, err := x.tr.Push(b)
	return x.took(step, done, ok, err)
}

// flush records the loss of the last step pushed, if it has not come back
// yet: before an evaluation, a checkpoint or the end, so that the window's
// loss and the checkpoint's clock hold every step trained.
func (x *execution) flush(step int) error {
	done, ok, err := x.tr.Flush()
	return x.took(step, done, ok, err)
}

// took records a step's loss that came back (ok), or fails the run at the
// step whose loss was not finite (or at step).
func (x *execution) took(step int, done seq2seq.StepLoss, ok bool, err error) error {
	if err != nil {
		var le *seq2seq.LossError
		if errors.As(err, &le) {
			step = le.Step
		}
		x.fail(step, err)
		return x.errorf("%w (%s)", err, x.keptNote())
	}
	if !ok {
		return nil
	}
	x.loss = done.Loss
	x.clock.WindowLoss += done.Loss
	x.clock.WindowN++
	return x.tb.trainStep(done.Step, done.Loss, done.Rate)
}

// fail writes failed.json: the step and error of a run that failed.
func (x *execution) fail(step int, err error) {
	x.failed = true
	writeJSON(x.path("failed.json"), map[string]any{"run": x.r.ID, "step": step, "error": err.Error(), "last_checkpoint_step": x.saved})
}

// failAfter writes failed.json for an error of training or finishing that
// has not written it (an evaluation's, a device's at the end of a step)
// and returns err; an interruption is no failure.
func (x *execution) failAfter(err error) error {
	if !x.failed && !errors.Is(err, ErrInterrupted) {
		step := x.start
		if x.tr != nil {
			step = x.tr.Steps
		}
		x.fail(step, err)
	}
	return err
}

// evalDev evaluates on dev at step: a line of metrics.jsonl, TensorBoard's
// dev scalars, the best checkpoint so far for [train] select, and a
// checkpoint.
func (x *execution) evalDev(ctx context.Context, step int) error {
	r := x.r
	// no folder: a captioning dev example's image is not saved
	ev, err := evaluate(ctx, x.model, x.data.scoring("dev", ""), x.evalOptions(r.Train.EvalSize, 1, trainingExamples))
	if ctx.Err() != nil {
		// cut off mid-evaluation: the last checkpoint stands, and
		// --resume redoes these steps exactly
		return ErrInterrupted
	}
	if err != nil {
		return x.errorf("dev evaluation at step %d: %w", step, err)
	}
	line := evalLine{Step: step, Loss: x.clock.WindowLoss / float64(x.clock.WindowN),
		DevTokenAcc: ev.metrics["token_acc"], DevExactMatch: ev.metrics["exact_match"], DevBLEU: ev.metrics["bleu"], Seconds: x.clock.TrainSeconds}
	if err := x.devForced(ctx, ev.metrics, &line); err != nil {
		return err
	}
	if sel := r.Train.Select; sel != "" {
		score := ev.metrics[sel]
		if lowerIsBetter(sel) {
			score = -score // the plateau schedule watches a score that rises
		}
		x.opt.Observe(score) // the plateau schedule's step: lr is the rate from here on
	}
	line.LR = x.opt.Rate()
	x.lines = append(x.lines, line)
	x.clock.WindowLoss, x.clock.WindowN = 0, 0
	if err := x.tb.dev(step, ev.metrics); err != nil {
		return err
	}
	if err := writeJSONL(x.path("metrics.jsonl"), x.lines); err != nil {
		return err
	}
	x.trainAttn = append(x.trainAttn, trainingLine{Step: step, Examples: roundedExamples(ev.examples)})
	if err := writeJSONL(x.path(trainingFile), x.trainAttn); err != nil {
		return err
	}
	if r.Train.Select != "" && x.sel.observe(r.Train.Select, step, ev.metrics[r.Train.Select], r.Train.MinDelta) {
		// the best on dev so far: kept apart, for the test split
		if err := saveBest(x.model, x.data, step, x.path(bestFile)); err != nil {
			return x.errorf("%w", err)
		}
	}
	return x.save(step)
}

// save writes the checkpoint of step: the model, the optimizer's state and
// the run's clock and model selection.
func (x *execution) save(step int) error {
	sv, tv := x.data.vocabs()
	c := x.clock
	c.BestScore, c.BestStep, c.SinceBest = x.sel.best, x.sel.step, x.sel.since
	mark := x.sel.mark
	c.PatienceMark = &mark
	clock, err := json.Marshal(c)
	if err != nil {
		return err
	}
	ost, err := x.opt.State()
	if err != nil {
		return err
	}
	ck := seq2seq.Checkpoint{SrcVocab: sv, TgtVocab: tv, Step: step, Optimizer: &ost, Run: clock}
	if err := x.model.Save(x.path(checkpointFile), ck); err != nil {
		return x.errorf("%w (%s)", err, x.keptNote())
	}
	x.saved = step
	os.Remove(x.path(oldCheckpointFile)) // an older run's checkpoint, now replaced
	return nil
}

// evalOptions are the run's decoding settings for an evaluation of the
// first n examples with beam width beam, keeping the first keep examples.
func (x *execution) evalOptions(n, beam, keep int) evalOptions {
	return evalOptions{N: n, Batch: x.r.Train.Batch, MaxLen: x.maxLen, Beam: beam, Alpha: x.r.Decode.Alpha,
		Cache: x.evalCache, Keep: keep, Dir: x.dir}
}

// finish scores the test split (with the checkpoint best on dev, for
// [train] select) and writes alignments.jsonl, attention.jsonl
// (explore.go), TensorBoard's test scalars and final.json. The checkpoint
// of the last step is written first, so an interrupted evaluation is
// redone whole by --resume.
func (x *execution) finish(ctx context.Context, report func(Progress)) (*Final, error) {
	r := x.r
	if r.Train.Select != "" {
		// the test split is scored with the checkpoint best on dev, on the
		// host, through graphs of its own in the run's arena
		best, _, err := seq2seq.Load(x.path(bestFile))
		if err != nil {
			return nil, x.errorf("the best checkpoint: %w", err)
		}
		bestCache := x.tr.Cache.Share(0)
		x.closers = append(x.closers, bestCache.Close)
		x.model, x.evalCache = best, bestCache
	}
	t0 := time.Now()
	test := x.data.scoring("test", x.dir)
	o := x.evalOptions(1<<30, 1, max(r.Decode.Examples, exploreCount(r.Explore)))
	o.TopK = r.TopWords
	ev, err := evaluate(ctx, x.model, test, o)
	testDecodeSeconds := time.Since(t0).Seconds()
	if err == nil {
		err = addForced(ctx, x.model, x.evalCache, test, ev.examples, r.Train.Batch)
	}
	if ctx.Err() != nil {
		return nil, ErrInterrupted
	}
	if err != nil {
		return nil, err
	}
	m := ev.metrics
	beam, err := x.testScores(ctx, m)
	if err != nil {
		return nil, err
	}
	if beam != nil { // the decoding `attnzoo translate` does by default: the run's beam
		test = beam
	}
	if err := x.writeText(test); err != nil {
		return nil, err
	}
	if err := finiteMetrics(m); err != nil {
		// a model that diverged without its loss overflowing (a loss of
		// 1e30 is finite): the run fails, named, as one whose loss did
		x.fail(r.Train.Steps, err)
		return nil, x.errorf("%w (%s)", err, x.keptNote())
	}
	saved := ev.examples[:min(len(ev.examples), r.Decode.Examples)]
	if err := writeJSONL(x.path("alignments.jsonl"), saved); err != nil {
		return nil, err
	}
	if err := writeJSONL(x.path(attentionFile), roundedExamples(ev.examples[:min(len(ev.examples), exploreCount(r.Explore))])); err != nil {
		return nil, err
	}
	if err := x.tb.final(r.Train.Steps, m, saved, x.dir); err != nil {
		return nil, err
	}
	f := x.final(m, testDecodeSeconds)
	f.BLEUSignature = test.bleuSignature()
	if err := writeJSON(x.path("final.json"), f); err != nil {
		return nil, err
	}
	os.Remove(x.path("failed.json"))
	report(Progress{Run: r.ID, Step: r.Train.Steps, Steps: r.Train.Steps, Done: true})
	return f, nil
}

// testScores adds to the test metrics m the perplexity, the alignment on
// the reference (align.go: aer, loc_peak, loc_mass and their baselines)
// and, with [decode] beam > 1, the beam's metrics as NAME_beam; it then
// returns the beam's scoring (else nil).
func (x *execution) testScores(ctx context.Context, m map[string]float64) (scoring, error) {
	r := x.r
	nll, toks := 0.0, 0
	batches, err := x.data.scoringBatches("test", r.Train.Batch)
	if err != nil {
		return nil, err
	}
	for _, b := range batches {
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
		l, n, err := x.model.NLL(b, x.evalCache)
		if err != nil {
			return nil, err
		}
		nll, toks = nll+l, toks+n
	}
	if m["perplexity"], err = metrics.Perplexity(nll, toks); err != nil {
		return nil, err
	}
	al, err := x.data.alignment(x.model, "test", r.Train.Batch, r.Eval.AlignShift, x.evalCache, x.dir)
	if ctx.Err() != nil {
		return nil, ErrInterrupted
	}
	if err != nil {
		return nil, x.errorf("alignment on the reference: %w", err)
	}
	for k, v := range al {
		m[k] = v
	}
	if r.Decode.Beam <= 1 {
		return nil, nil
	}
	beam := x.data.scoring("test", x.dir)
	evb, err := evaluate(ctx, x.model, beam, x.evalOptions(1<<30, r.Decode.Beam, 0))
	if ctx.Err() != nil {
		return nil, ErrInterrupted
	}
	if err != nil {
		return nil, err
	}
	for k, v := range evb.metrics {
		m[k+"_beam"] = v
	}
	return beam, nil
}

// texter is a scoring whose hypotheses and references are text (a
// translation split's): textScoring.text.
type texter interface {
	text() (hyp, ref []string)
}

// testHyp and testRef are a text run's test split as text: the output of
// the run's [decode] beam, one line per test example in order, as
// `attnzoo translate` writes it, and the references as the run scored
// them (textLine).
const testHyp, testRef = "test.hyp", "test.ref"

// writeText writes test.hyp and test.ref from the test split's scoring s,
// where its hypotheses are text.
func (x *execution) writeText(s scoring) error {
	t, ok := s.(texter)
	if !ok {
		return nil
	}
	hyp, ref := t.text()
	for _, f := range []struct {
		name  string
		lines []string
	}{{testHyp, hyp}, {testRef, ref}} {
		var b strings.Builder
		for _, l := range f.lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		if err := writeFile(x.path(f.name), b.String()); err != nil {
			return x.errorf("%w", err)
		}
	}
	return nil
}

// onExecution, when set (tests), is told of each run's execution as it
// is made.
var onExecution func(*execution)

// final is the run's final.json, with the test metrics m.
func (x *execution) final(m map[string]float64, testDecodeSeconds float64) *Final {
	r := x.r
	trained := r.Train.Steps
	if x.stoppedAt > 0 {
		trained = x.stoppedAt
	}
	point := map[string]any{}
	for _, a := range r.Point {
		point[a.Key] = a.Value
	}
	// Final outlives the run (a sweep keeps every finished one): it holds
	// copies, never a pointer into x, or the run's arena, optimizer state
	// and data would stay alive until the sweep ends (TestRunFreedAfterFinal).
	f := &Final{Run: r.ID, Seed: r.Seed, Point: point, Metrics: m, Steps: trained, StoppedAt: x.stoppedAt,
		TrainSeconds: x.clock.TrainSeconds, TestDecodeSeconds: testDecodeSeconds, Params: x.model.NumParams(), Provenance: new(x.prov)}
	est := x.e.runEstimate(r)
	f.Memory = &est
	if use, ok := x.tr.Cache.ArenaUse(); ok {
		f.Arena = &use
	}
	if r.Train.Select != "" {
		f.Selected = &Selected{Metric: "dev_" + r.Train.Select, Step: x.sel.step, Score: x.sel.best}
	}
	if x.clock.TrainSeconds > 0 {
		f.StepsPerSec = float64(trained) / x.clock.TrainSeconds
	}
	return f
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
	if err != nil { // never ErrNotExist (a missing tensors file is an error): the checkpoint is there
		return nil, nil, fmt.Errorf("experiments: %v", err)
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

// unverified lists the runs (by id) among runs, in their folders under
// runsDir, that have no final.json and would resume from a checkpoint
// written before checkpoints carried checksums.
func unverified(runsDir string, runs []*Run) []string {
	var out []string
	for _, r := range runs {
		dir := filepath.Join(runsDir, r.ID)
		if _, err := os.Stat(filepath.Join(dir, "final.json")); err == nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, checkpointFile))
		if errors.Is(err, os.ErrNotExist) {
			if _, err := os.Stat(filepath.Join(dir, oldCheckpointFile)); err == nil {
				out = append(out, r.ID)
			}
			continue
		}
		var ck seq2seq.Checkpoint
		if err == nil && json.Unmarshal(data, &ck) == nil && !ck.Verified() {
			out = append(out, r.ID)
		}
	}
	return out
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

// readLines reads metrics.jsonl's lines up to step upTo. The file is
// written whole (atomically) by the run, so a line that does not parse, or
// a file that cannot be read, means it was damaged: an error naming the
// file and the line, never a history silently cut short.
func readLines(path string, upTo int) ([]evalLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	defer f.Close()
	var out []evalLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		n++
		var l evalLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("experiments: %s:%d: not a line of metrics (%v)", path, n, err)
		}
		if l.Step <= upTo {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("experiments: %s: after line %d: %w", path, n, err)
	}
	return out, nil
}

// writeJSONL writes items to path, one JSON object a line (metrics.jsonl,
// alignments.jsonl), atomically.
func writeJSONL[T any](path string, items []T) error {
	var b bytes.Buffer
	for _, it := range items {
		data, err := json.Marshal(it)
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
