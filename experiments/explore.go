package experiments

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"github.com/attnzoo/attnzoo/metrics"
	"github.com/attnzoo/attnzoo/seq2seq"
)

// attentionFile is a run's attention.jsonl: the first [report] explore
// test examples (all by default), one Example a line as in
// alignments.jsonl, every weight rounded to 4 decimals (roundedExamples).
// explore.html is built from it.
const attentionFile = "attention.jsonl"

// exploreScale is the quantisation of explore.html's weights: a weight w
// is stored as the byte round(w·255), and the page shows byte/255, so a
// weight shown differs from attention.jsonl's by at most 1/510.
const exploreScale = 255

// exploreCount is how many test examples [report] explore = n keeps: n,
// or all of them for 0.
func exploreCount(n int) int {
	if n <= 0 {
		return math.MaxInt
	}
	return n
}

// roundedExamples is ex with every weight and probability rounded to 4
// decimals (a copy): what attention.jsonl holds, a third the size of full
// precision.
func roundedExamples(ex []Example) []Example {
	out := slices.Clone(ex)
	round := func(rows [][]float64) [][]float64 {
		var w [][]float64
		for _, row := range rows {
			r := make([]float64, len(row))
			for s, v := range row {
				r[s] = round4(v)
			}
			w = append(w, r)
		}
		return w
	}
	for i := range out {
		out[i].Weights = round(out[i].Weights)
		out[i].Forced = round(out[i].Forced)
		var top [][]TopWord
		for _, step := range out[i].Top {
			ws := slices.Clone(step)
			for k := range ws {
				ws[k].P = round4(ws[k].P)
			}
			top = append(top, ws)
		}
		out[i].Top = top
	}
	return out
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// addForced sets the forced attention (Example.Forced, ForcedRef) of the
// examples an evaluation of s kept, its first len(exs), forced-decoding
// batch at a time.
func addForced(ctx context.Context, m *seq2seq.Model, cache *seq2seq.GraphCache, s scoring, exs []Example, batch int) error {
	var shape attnShape // unused: the test split's shape is align.go's
	return forcedBatches(ctx, m, cache, len(exs), batch, &shape, s.forcedBatch, func(i int, r [][]float64) error {
		ref, rows, err := s.forcedWords(i, r)
		if err != nil {
			return fmt.Errorf("experiments: test example %d: %w", i, err)
		}
		exs[i].Forced = rows
		if !slices.Equal(ref, exs[i].Ref) {
			exs[i].ForcedRef = ref
		}
		return nil
	})
}

// exploreData is the JSON explore.html holds: the runs, and per test
// example its source, reference, gold links and each run's attention.
type exploreData struct {
	Name     string           `json:"name"`
	Scale    int              `json:"scale"` // exploreScale
	Runs     []exploreRun     `json:"runs"`
	Examples []exploreExample `json:"examples"`
	Training *exploreTraining `json:"training,omitempty"`
}

type exploreRun struct {
	ID    string   `json:"id"`
	Point string   `json:"point"` // the sweep point's label (Summary.Points)
	Seed  int64    `json:"seed"`
	AER   *float64 `json:"aer,omitempty"` // the run's test aer (final.json)
}

// exploreText is an example's words and gold links.
type exploreText struct {
	Index int `json:"index"` // in its split
	// Src is the source's words; none for an image, whose regions the
	// page names r0, r1, … (Example.Src) from Grid.
	Src      []string `json:"src,omitempty"`
	Ref      []string `json:"ref"`
	Sure     [][2]int `json:"sure,omitempty"` // gold links, [source, target] (0-based)
	Possible [][2]int `json:"possible,omitempty"`
	// Captioning: the image, relative to the results folder (the first
	// run's copy, runs/RUN/examples/N.png), the regions' grid and each
	// word's gold boxes (Example.Boxes).
	Image string                  `json:"image,omitempty"`
	Grid  *[2]int                 `json:"grid,omitempty"`
	Boxes map[string][][4]float64 `json:"boxes,omitempty"`
}

type exploreExample struct {
	exploreText
	// Runs is each run's attention, as exploreData.Runs; nil where the run
	// did not save this example.
	Runs []*exploreAttn `json:"runs"`
}

// exploreTraining is the attention of a few dev examples at each
// evaluation (training_attention.jsonl).
type exploreTraining struct {
	Steps    []int                    `json:"steps"` // every run's evaluations, in order
	Examples []exploreTrainingExample `json:"examples"`
}

type exploreTrainingExample struct {
	exploreText
	// Runs[i][k] is run i's attention at evaluation Steps[k]; nil where
	// it has none.
	Runs [][]*exploreAttn `json:"runs"`
}

// textOf is e's words and gold links.
func textOf(e Example) (exploreText, error) {
	x := exploreText{Index: e.Index, Src: e.Src, Ref: e.Ref, Boxes: e.Boxes}
	if e.Grid != [2]int{} {
		g := e.Grid
		x.Grid, x.Src = &g, nil
	}
	var err error
	if x.Sure, err = goldPairs(e.Sure); err == nil {
		x.Possible, err = goldPairs(e.Possible)
	}
	return x, err
}

// exploreAttn is one run's attention on one example: rows (the output
// words, then </s>) × the source's words, row-major, a byte per weight
// (exploreScale), base64.
type exploreAttn struct {
	Hyp  []string `json:"hyp"`
	Src  []string `json:"src,omitempty"` // where it is not the example's (a swept task key)
	Rows int      `json:"rows"`
	W    string   `json:"w"`
	// The step-through's: TW and TP are each free-running step's TK most
	// probable words (Example.Top), all steps' words in one string,
	// separated by spaces (no token holds one), and their probabilities
	// in thousandths; F is the forced decoding's attention
	// (Example.Forced) as W, FRows rows, on the reference FRef where it is
	// not the example's.
	TK    int      `json:"tk,omitempty"`
	TW    string   `json:"tw,omitempty"`
	TP    []int    `json:"tp,omitempty"`
	F     string   `json:"f,omitempty"`
	FRows int      `json:"frows,omitempty"`
	FRef  []string `json:"fref,omitempty"`
	// AER is the example's alignment error rate of the argmax links of
	// these weights (alignments.jsonl's links) against its gold links (its
	// share of the run's aer_free), to 4 decimals. Absent without gold
	// links.
	AER *float64 `json:"aer,omitempty"`
}

var (
	//go:embed explore/explore.html
	explorePage string
	//go:embed explore/explore.css
	exploreCSS string
	//go:embed explore/explore.js
	exploreJS string

	exploreTmpl = template.Must(template.New("explore.html").Parse(explorePage))
)

// writeExplorer writes explore.html in results folder dir: the attention
// of every finished run of s on the test examples it saved
// (attention.jsonl, or alignments.jsonl for a run finished before
// attention.jsonl was written), the first [report] explore of them.
func writeExplorer(dir string, s *Summary) error {
	d, err := exploreOf(dir, s)
	if err != nil {
		return err
	}
	data, err := json.Marshal(d) // escapes <, > and &: safe inside <script>
	if err != nil {
		return err
	}
	var b bytes.Buffer
	err = exploreTmpl.Execute(&b, map[string]string{
		"Name": html.EscapeString(d.Name), "CSS": exploreCSS, "JS": exploreJS, "Data": string(data)})
	if err != nil {
		return fmt.Errorf("experiments: explore.html: %w", err)
	}
	return writeFile(filepath.Join(dir, "explore.html"), b.String())
}

// exploreOf gathers explore.html's data from results folder dir.
func exploreOf(dir string, s *Summary) (*exploreData, error) {
	d := &exploreData{Name: filepath.Base(dir), Scale: exploreScale}
	byIndex := map[int]*exploreExample{}
	var training [][]trainingLine // per run
	for _, p := range s.Points() {
		for _, f := range p.Runs {
			rd := filepath.Join(dir, "runs", f.Run)
			exs, err := readExampleFile(filepath.Join(rd, attentionFile))
			if errors.Is(err, os.ErrNotExist) {
				exs, err = readExampleFile(filepath.Join(rd, "alignments.jsonl"))
			}
			if errors.Is(err, os.ErrNotExist) {
				exs, err = nil, nil
			}
			if err != nil {
				return nil, err
			}
			run := exploreRun{ID: f.Run, Point: p.Label, Seed: f.Seed}
			if v, ok := f.Metrics["aer"]; ok && !math.IsNaN(v) {
				run.AER = &v
			}
			for _, e := range exs {
				x := byIndex[e.Index]
				if x == nil {
					x = &exploreExample{}
					if x.exploreText, err = textOf(e); err != nil {
						return nil, fmt.Errorf("experiments: %s: example %d: %w", rd, e.Index, err)
					}
					if e.Image != "" {
						x.Image = "runs/" + f.Run + "/" + e.Image
					}
					byIndex[e.Index] = x
				}
				for len(x.Runs) < len(d.Runs) {
					x.Runs = append(x.Runs, nil)
				}
				a, err := exploreAttnOf(e, x.Src)
				if err != nil {
					return nil, fmt.Errorf("experiments: %s: example %d: %w", rd, e.Index, err)
				}
				x.Runs = append(x.Runs, a)
			}
			lines, err := readTrainingLines(filepath.Join(rd, trainingFile), math.MaxInt)
			if err != nil {
				return nil, err
			}
			training = append(training, lines)
			d.Runs = append(d.Runs, run)
		}
	}
	for _, x := range byIndex {
		for len(x.Runs) < len(d.Runs) {
			x.Runs = append(x.Runs, nil)
		}
		d.Examples = append(d.Examples, *x)
	}
	slices.SortFunc(d.Examples, func(a, b exploreExample) int { return a.Index - b.Index })
	if n := exploreCount(s.Report.Explore); len(d.Examples) > n {
		d.Examples = d.Examples[:n]
	}
	var err error
	d.Training, err = trainingOf(training)
	return d, err
}

// trainingOf gathers the runs' training_attention.jsonl lines (per run,
// as exploreData.Runs) for the page; nil when no run has any.
func trainingOf(runs [][]trainingLine) (*exploreTraining, error) {
	var steps []int
	text := map[int]exploreText{}
	for _, lines := range runs {
		for _, l := range lines {
			steps = append(steps, l.Step)
			for _, e := range l.Examples {
				if _, ok := text[e.Index]; !ok {
					x, err := textOf(e)
					if err != nil {
						return nil, fmt.Errorf("experiments: %s: step %d, dev example %d: %w", trainingFile, l.Step, e.Index, err)
					}
					text[e.Index] = x
				}
			}
		}
	}
	if len(steps) == 0 {
		return nil, nil
	}
	slices.Sort(steps)
	t := &exploreTraining{Steps: slices.Compact(steps)}
	for _, x := range text {
		ex := exploreTrainingExample{exploreText: x, Runs: make([][]*exploreAttn, len(runs))}
		for i, lines := range runs {
			ex.Runs[i] = make([]*exploreAttn, len(t.Steps))
			for _, l := range lines {
				k, _ := slices.BinarySearch(t.Steps, l.Step)
				for _, e := range l.Examples {
					if e.Index != x.Index {
						continue
					}
					a, err := exploreAttnOf(e, x.Src)
					if err != nil {
						return nil, fmt.Errorf("experiments: %s: step %d, dev example %d: %w", trainingFile, l.Step, e.Index, err)
					}
					ex.Runs[i][k] = a
				}
			}
		}
		t.Examples = append(t.Examples, ex)
	}
	slices.SortFunc(t.Examples, func(a, b exploreTrainingExample) int { return a.Index - b.Index })
	return t, nil
}

// exploreAttnOf quantises e's weights for the page, src being the source
// its example's entry holds.
func exploreAttnOf(e Example, src []string) (*exploreAttn, error) {
	a := &exploreAttn{Hyp: e.Hyp, Rows: len(e.Weights), FRows: len(e.Forced), FRef: e.ForcedRef}
	if !slices.Equal(e.Src, src) && e.Grid == [2]int{} {
		a.Src = e.Src
	}
	var err error
	if a.W, err = quantised(e.Weights, len(e.Src), ""); err == nil {
		a.F, err = quantised(e.Forced, len(e.Src), "forced ")
	}
	if err != nil {
		return nil, err
	}
	var words []string
	for t, step := range e.Top {
		if t == 0 {
			a.TK = len(step)
		}
		if len(step) != a.TK {
			return nil, fmt.Errorf("%d top words at step %d, %d at step 0", len(step), t, a.TK)
		}
		for _, x := range step {
			words = append(words, x.W)
			a.TP = append(a.TP, int(math.Round(x.P*1e3)))
		}
	}
	a.TW = strings.Join(words, " ")
	if e.Sure != "" {
		links, err := metrics.ParsePharaoh(e.Links)
		if err != nil {
			return nil, err
		}
		sure, _ := metrics.ParsePharaoh(e.Sure)
		poss, _ := metrics.ParsePharaoh(e.Possible)
		aer := math.Round(metrics.CountLinks(links, sure, poss).AER()*1e4) / 1e4
		a.AER = &aer
	}
	return a, nil
}

// quantised is attention rows over n source words as the page stores
// them: a byte a weight (exploreScale), row-major, base64; "" for none.
func quantised(rows [][]float64, n int, what string) (string, error) {
	if len(rows) == 0 {
		return "", nil
	}
	q := make([]byte, 0, len(rows)*n)
	for t, row := range rows {
		if len(row) != n {
			return "", fmt.Errorf("%sattention row %d has %d weights for %d source words", what, t, len(row), n)
		}
		for _, w := range row {
			q = append(q, byte(math.Round(min(max(w, 0), 1)*exploreScale)))
		}
	}
	return base64.StdEncoding.EncodeToString(q), nil
}

// goldPairs is a Pharaoh line's links as [source, target] pairs.
func goldPairs(line string) ([][2]int, error) {
	links, err := metrics.ParsePharaoh(line)
	if err != nil {
		return nil, err
	}
	var out [][2]int
	for _, l := range links {
		out = append(out, [2]int{l.Src, l.Tgt})
	}
	return out, nil
}

// trainingFile is a run's training_attention.jsonl: at each dev
// evaluation, a trainingLine with the attention of the first
// trainingExamples dev examples, for explore.html's view of attention
// over training.
const trainingFile = "training_attention.jsonl"

// trainingExamples is how many dev examples (the first) a run records at
// each evaluation.
const trainingExamples = 3

// trainingLine is one line of training_attention.jsonl.
type trainingLine struct {
	Step     int       `json:"step"`
	Examples []Example `json:"examples"` // weights rounded as roundedExamples
}

// readTrainingLines reads training_attention.jsonl's lines up to step
// upTo (a resumed run's checkpoint); a run started before the file was
// written has none.
func readTrainingLines(path string, upTo int) ([]trainingLine, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	var out []trainingLine
	for n, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var l trainingLine
		if err := json.Unmarshal(line, &l); err != nil {
			return nil, fmt.Errorf("experiments: %s:%d: %w", path, n+1, err)
		}
		if l.Step <= upTo {
			out = append(out, l)
		}
	}
	return out, nil
}
