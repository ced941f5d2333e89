package experiments

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/attnzoo/attnzoo/internal/atomicfile"
	"github.com/attnzoo/attnzoo/seq2seq"
)

// Options control Runner.Run.
type Options struct {
	Out      string // the results root; the experiment writes to Out/Name
	Workers  int    // runs trained at once; 0 means 1
	Resume   bool   // keep finished runs and continue cut-off ones
	Shard    int    // this shard's index, with Shards > 1
	Shards   int    // the number of shards (0 or 1: no sharding)
	Log      io.Writer
	Terminal bool // redraw a status line per run instead of printing log lines
	// MaxMemory is the memory the sweep may use, in bytes; 0 means
	// MemoryLimit's (the cgroup limit, else MemAvailable).
	MaxMemory float64
}

// Dir is the experiment's results folder.
func (e *Experiment) Dir(out string) string { return filepath.Join(out, e.Name) }

// Result of a whole sweep.
type Result struct {
	Finished []*Final
	Failed   map[string]error
}

// Run trains every run of the experiment (this shard's, when sharded) with
// opt.Workers in parallel and writes the summary. The results folder has
// one writer: another sweep writing there (other than another shard of
// this one) is refused, naming it (lock.go). Without Resume, a results
// folder that already holds runs is an error, so no finished work is lost.
// A run that fails (a NaN loss, say) is reported and the others go on.
// When ctx is cancelled, the runs in progress write a checkpoint and stop.
func (e *Experiment) Run(ctx context.Context, opt Options) (*Result, error) {
	return e.runWithReport(ctx, opt, nil)
}

func (e *Experiment) runWithReport(ctx context.Context, opt Options, hook func(Progress)) (*Result, error) {
	runs, err := e.Runs()
	if err != nil {
		return nil, err
	}
	dir := e.Dir(opt.Out)
	runsDir := filepath.Join(dir, "runs")
	var mine []*Run
	for _, r := range runs {
		if opt.Shards > 1 && r.Index%opt.Shards != opt.Shard {
			continue
		}
		mine = append(mine, r)
	}
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	workers := max(opt.Workers, 1)
	plan, err := e.plan(ctx, mine, workers, opt.MaxMemory)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("experiments: interrupted while estimating the runs' memory; nothing was written")
		}
		return nil, err
	}
	fmt.Fprintf(log, "attnzoo: %s: %s → %s\n", e.File, plan, dir)
	release, err := lockFolder(dir, opt.Shard, opt.Shards)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := checkKept(dir, mine, opt.Resume); err != nil {
		return nil, err
	}
	if old := unverified(runsDir, mine); len(old) > 0 {
		fmt.Fprintf(log, "attnzoo: resuming from checkpoints written before checksums, unverified: %s\n", listSome(old, 3, ", "))
	}
	if err := os.MkdirAll(runsDir, 0o777); err != nil {
		return nil, err
	}
	if err := seq2seq.WriteFileAtomic(filepath.Join(dir, "experiment.toml"), e.Raw); err != nil {
		return nil, err
	}
	removeStaleTemps(runsDir, mine)
	prog := newProgress(log, opt.Terminal, mine)
	res := e.executeAll(ctx, mine, runsDir, workers, prog, hook)
	prog.finish()
	if _, err := Collect(dir); err != nil {
		return res, err
	}
	if ctx.Err() != nil {
		return res, fmt.Errorf("experiments: interrupted; runs in progress saved a checkpoint: rerun with --resume")
	}
	if len(res.Failed) > 0 {
		ids := make([]string, 0, len(res.Failed))
		for id := range res.Failed {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		var msgs []string
		for _, id := range ids {
			msgs = append(msgs, res.Failed[id].Error())
		}
		return res, fmt.Errorf("experiments: %d of %d runs failed:\n  %s", len(ids), len(mine), strings.Join(msgs, "\n  "))
	}
	return res, nil
}

// checkKept refuses a results folder dir that already holds some of the
// runs, unless resume; and with resume, one whose kept runs are not the
// runs the file now gives. It is checked before anything is written, so a
// refused --resume changes nothing.
func checkKept(dir string, runs []*Run, resume bool) error {
	runsDir := filepath.Join(dir, "runs")
	if !resume {
		n := 0
		for _, r := range runs {
			if _, err := os.Stat(filepath.Join(runsDir, r.ID)); err == nil {
				n++
			}
		}
		if n > 0 {
			return fmt.Errorf("experiments: %s already holds %d of these runs: pass --resume to continue them, or choose another --out", dir, n)
		}
	}
	var stale []string
	for _, r := range runs {
		if err := checkResumable(r, filepath.Join(runsDir, r.ID)); err != nil {
			stale = append(stale, err.Error())
		}
	}
	if len(stale) > 0 {
		return fmt.Errorf("%s", listSome(stale, 3, "\n"))
	}
	return nil
}

// listSome joins the first n of items with sep, and says how many more
// there are.
func listSome(items []string, n int, sep string) string {
	if len(items) > n {
		items = append(items[:n:n], fmt.Sprintf("(and %d more runs)", len(items)-n))
	}
	return strings.Join(items, sep)
}

// executeAll executes the runs on workers goroutines, each in its folder
// under runsDir, reporting progress to prog (and hook); ctx done, it
// starts no more.
func (e *Experiment) executeAll(ctx context.Context, runs []*Run, runsDir string, workers int, prog *progress, hook func(Progress)) *Result {
	res := &Result{Failed: map[string]error{}}
	var mu sync.Mutex
	jobs := make(chan *Run)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for r := range jobs {
				report := prog.update
				if hook != nil {
					report = func(p Progress) { hook(p); prog.update(p) }
				}
				f, err := e.execute(ctx, r, filepath.Join(runsDir, r.ID), report, w)
				// the run's arena, graphs and data are garbage now: collect
				// them before the next run allocates its own, so that the
				// collector's goal (twice the last live heap) does not let
				// the next run's peak stack on this one's (the estimate
				// counts one run's memory, bench/README.md)
				runtime.GC()
				mu.Lock()
				if err != nil {
					res.Failed[r.ID] = err
					prog.update(Progress{Run: r.ID, Err: err})
				} else {
					res.Finished = append(res.Finished, f)
				}
				mu.Unlock()
			}
		}(w)
	}
dispatch:
	for _, r := range runs {
		select {
		case <-ctx.Done():
			break dispatch
		case jobs <- r:
		}
	}
	close(jobs)
	wg.Wait()
	return res
}

// progress prints per-run progress: log lines (not a terminal) or a block of
// status lines redrawn in place (a terminal).
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	order    []string
	state    map[string]Progress
	last     map[string]time.Time
	drawn    int
}

func newProgress(w io.Writer, terminal bool, runs []*Run) *progress {
	p := &progress{w: w, terminal: terminal, state: map[string]Progress{}, last: map[string]time.Time{}}
	for _, r := range runs {
		p.order = append(p.order, r.ID)
	}
	return p
}

func eta(p Progress) string {
	if p.Step == 0 || p.Elapsed == 0 {
		return "?"
	}
	left := time.Duration(float64(p.Elapsed) / float64(p.Step) * float64(p.Steps-p.Step))
	return left.Round(time.Second).String()
}

func (p *progress) update(u Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.state[u.Run] = u
	now := time.Now()
	switch {
	case u.Err != nil:
		if errors.Is(u.Err, ErrInterrupted) {
			fmt.Fprintf(p.w, "%s: interrupted, checkpoint written\n", u.Run)
		} else {
			fmt.Fprintf(p.w, "%s: FAILED: %v\n", u.Run, u.Err)
		}
		p.drawn = 0
	case u.Done:
		if !p.terminal {
			fmt.Fprintf(p.w, "%s: done\n", u.Run)
		}
	case p.terminal:
		if now.Sub(p.last[""]) < 200*time.Millisecond {
			return
		}
		p.last[""] = now
	default:
		if now.Sub(p.last[u.Run]) < 10*time.Second && u.Step != 1 {
			return
		}
		p.last[u.Run] = now
		fmt.Fprintf(p.w, "%s: step %d/%d loss %.4f eta %s\n", u.Run, u.Step, u.Steps, u.Loss, eta(u))
		return
	}
	if p.terminal {
		p.redraw()
	}
}

func (p *progress) redraw() {
	if p.drawn > 0 {
		fmt.Fprintf(p.w, "\x1b[%dA", p.drawn)
	}
	p.drawn = 0
	for _, id := range p.order {
		s, ok := p.state[id]
		if !ok {
			continue
		}
		line := fmt.Sprintf("%-40s step %6d/%-6d loss %8.4f  eta %s", id, s.Step, s.Steps, s.Loss, eta(s))
		if s.Done {
			line = fmt.Sprintf("%-40s done", id)
		}
		fmt.Fprintf(p.w, "\x1b[2K%s\n", line)
		p.drawn++
	}
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal {
		p.redraw()
	}
}

// removeStaleTemps deletes temporary files a killed process left behind
// (atomicfile's temporary files, never renamed into place).
// Only this process's runs are cleaned: another shard may be writing into
// the same folder.
func removeStaleTemps(runsDir string, mine []*Run) {
	for _, r := range mine {
		matches, _ := filepath.Glob(filepath.Join(runsDir, r.ID, atomicfile.TempPattern))
		for _, m := range matches {
			os.Remove(m)
		}
	}
}
