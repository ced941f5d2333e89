package experiments

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/attnzoo/attnzoo/internal/tbevents"
	"github.com/attnzoo/attnzoo/plots"
)

// boardDPI is the resolution of the attention figures sent to TensorBoard:
// a screen's, not print's.
const boardDPI = 200

// validateOutput checks the [output] table.
func (e *Experiment) validateOutput() error {
	o := e.Output
	if o.TensorBoardEvery <= 0 {
		return e.errf("output", "tensorboard_every", "must be > 0 (steps per training-loss point), got %d", o.TensorBoardEvery)
	}
	if o.TensorBoardImages < 0 {
		return e.errf("output", "tensorboard_images", "must be ≥ 0 (attention figures of the first saved test examples), got %d", o.TensorBoardImages)
	}
	return nil
}

// board writes a run's TensorBoard event file (runs/<id>/tb/): the
// training loss (its mean over the last tensorboard_every steps) and the
// learning rate, the dev metrics at each evaluation, and at the end the
// test metrics and the attention figures of the first saved test
// examples. A nil board writes nothing: its methods are the run's hooks.
type board struct {
	w       *tbevents.Writer
	every   int
	images  int
	palette string
	loss    float64 // training loss summed since the last point
	n       int
}

// openBoard starts the run's event file when [output] tensorboard is on;
// a run resumed after step start first marks the restart, so TensorBoard
// hides what the cut-off process wrote after its checkpoint.
func (e *Experiment) openBoard(dir string, start int) (*board, error) {
	if !e.Output.TensorBoard {
		return nil, nil
	}
	w, err := tbevents.Create(filepath.Join(dir, "tb"))
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	b := &board{w: w, every: e.Output.TensorBoardEvery, images: e.Output.TensorBoardImages, palette: e.Plots.Palette}
	if start > 0 {
		if err := w.Restart(int64(start + 1)); err != nil {
			w.Close()
			return nil, err
		}
	}
	return b, nil
}

// trainStep records one training step's loss; every tensorboard_every
// steps it writes train/loss (the mean since the last point) and train/lr.
func (b *board) trainStep(step int, loss, lr float64) error {
	if b == nil {
		return nil
	}
	b.loss, b.n = b.loss+loss, b.n+1
	if step%b.every != 0 {
		return nil
	}
	mean := b.loss / float64(b.n)
	b.loss, b.n = 0, 0
	if err := b.w.Scalar("train/loss", int64(step), mean); err != nil {
		return err
	}
	return b.w.Scalar("train/lr", int64(step), lr)
}

// scalars writes metrics at step as prefix/<name>, in name order.
func (b *board) scalars(prefix string, step int, m map[string]float64) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := b.w.Scalar(prefix+"/"+k, int64(step), m[k]); err != nil {
			return err
		}
	}
	return nil
}

// dev writes a dev evaluation's metrics as dev/<metric>.
func (b *board) dev(step int, m map[string]float64) error {
	if b == nil {
		return nil
	}
	return b.scalars("dev", step, m)
}

// final writes the test metrics as test/<metric> and the attention
// figures of the first saved test examples as attention/example_<index>,
// drawn as figures/ draws them (plots.AlignmentHeatmap; captioning's
// overlays), at the last step: tensorboard_images of them, or as many as
// [decode] examples saves when that is fewer. An example that cannot be drawn is left
// out: a figure is no reason to fail a trained run.
func (b *board) final(step int, m map[string]float64, examples []Example, runDir string) error {
	if b == nil {
		return nil
	}
	if err := b.scalars("test", step, m); err != nil {
		return err
	}
	for _, x := range examples[:min(b.images, len(examples))] {
		title := fmt.Sprintf("test example %d", x.Index)
		var fig *plots.Figure
		var err error
		if x.Image != "" {
			fig, err = overlay(runDir, x, title)
		} else {
			var a plots.Alignment
			if a, err = alignmentOf(x, title); err == nil {
				fig, err = plots.AlignmentHeatmap(a, plots.HeatmapOptions{Palette: paletteFor(b.palette)})
			}
		}
		if err != nil {
			continue // one figures/ cannot draw either (an empty output, say)
		}
		if err := b.w.Image(fmt.Sprintf("attention/example_%d", x.Index), int64(step), fig.Image(boardDPI)); err != nil {
			return err
		}
	}
	return nil
}

// close closes the event file.
func (b *board) close() error {
	if b == nil {
		return nil
	}
	return b.w.Close()
}
