package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/attnzoo/attnzoo/seq2seq"
)

// parallelResult is `attnzoo bench --parallel N`'s measure of how a sweep
// scales: N bench models trained one after another on one goroutine, then
// the same N side by side, one goroutine each (as `attnzoo run --workers N`
// runs them). SpeedUp = serial time ÷ parallel time; N means perfect.
type parallelResult struct {
	Workers   int     `json:"workers"`
	Steps     int     `json:"steps_per_model"`
	SerialS   float64 `json:"serial_s"`
	ParallelS float64 `json:"parallel_s"`
	SpeedUp   float64 `json:"speed_up"`
}

// runParallel measures the speed-up. Each model first runs warm steps
// (graph compilation, buffers) outside the clock; each timed phase then
// runs steps fresh batches per model.
func runParallel(ctx context.Context, sizes benchSizes, workers, steps int) (*parallelResult, error) {
	const warm = 3
	type job struct {
		tr      *seq2seq.Trainer
		batches []*seq2seq.Batch
	}
	jobs := make([]job, workers)
	for i := range jobs {
		tr, err := benchTrainer(sizes, uint64(i+1))
		if err != nil {
			return nil, err
		}
		defer tr.Cache.Close()
		rng := rand.New(rand.NewPCG(uint64(i+1), 7))
		bs := make([]*seq2seq.Batch, warm+2*steps)
		for k := range bs {
			bs[k] = sizes.draw(rng)
		}
		jobs[i] = job{tr, bs}
		for _, b := range bs[:warm] {
			if _, err := tr.Step(b); err != nil {
				return nil, err
			}
		}
	}
	train := func(j job, bs []*seq2seq.Batch) error {
		for _, b := range bs {
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, err := j.tr.Step(b); err != nil {
				return err
			}
		}
		return nil
	}
	t0 := time.Now()
	for _, j := range jobs {
		if err := train(j, j.batches[warm:warm+steps]); err != nil {
			return nil, err
		}
	}
	serial := time.Since(t0)
	t0 = time.Now()
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = train(j, j.batches[warm+steps:])
		}()
	}
	wg.Wait()
	parallel := time.Since(t0)
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	r := &parallelResult{Workers: workers, Steps: steps, SerialS: serial.Seconds(), ParallelS: parallel.Seconds()}
	r.SpeedUp = r.SerialS / r.ParallelS
	return r, nil
}

func (r *parallelResult) String() string {
	return fmt.Sprintf("%d anchor models × %d steps: one after another %.2f s, side by side on %d workers %.2f s: speed-up %.2f× (perfect %d×)",
		r.Workers, r.Steps, r.SerialS, r.Workers, r.ParallelS, r.SpeedUp, r.Workers)
}
