package experiments

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/tasks"
	"github.com/attnzoo/attnzoo/tasks/subword"
)

// Trained is a run's model with what it needs to read and write text.
type Trained struct {
	Model     *seq2seq.Model
	Src, Tgt  *tasks.Vocab
	Tokenizer tasks.Tokenizer // nil: split on whitespace
	Decode    Decode
	// How the source and target tokens mark words (tasks.Subworded);
	// for subword pieces, DecodeText gives words.
	SrcScheme, TgtScheme subword.Scheme
	// Checkpoint is the file the model was loaded from, in the run folder:
	// best.json, the checkpoint best on dev, for a run with [train]
	// select (the model its test metrics come from), else checkpoint.json,
	// the last; Step is its step and Select the run's [train] select.
	Checkpoint string
	Step       int
	Select     string
	// Batch is the run's [train] batch: its evaluations decode that many
	// examples together, and so does Translate by default.
	Batch int
}

// LoadRun loads a run folder's configuration and the checkpoint its test
// metrics come from: best.json for a run with [train] select, else the
// last (Trained.Checkpoint says which).
func LoadRun(dir string) (*Trained, error) {
	var cfg runConfigTOML
	cpath := filepath.Join(dir, "config.toml")
	if _, err := toml.DecodeFile(cpath, &cfg); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("experiments: %s is not a run folder: %w", dir, err)
		}
		return nil, fmt.Errorf("experiments: %s: %w", cpath, err)
	}
	var (
		m    *seq2seq.Model
		ck   *seq2seq.Checkpoint
		file = checkpointFile
		err  error
	)
	if cfg.Train.Select != "" {
		file = bestFile
		if m, ck, err = seq2seq.Load(filepath.Join(dir, bestFile)); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("experiments: %s has [train] select = %q but no %s yet: it is written at the run's first dev evaluation", dir, cfg.Train.Select, bestFile)
		}
		if err != nil {
			return nil, fmt.Errorf("experiments: %w", err)
		}
	} else {
		var st *runState
		if m, st, err = readState(dir); err != nil {
			return nil, err
		}
		ck = st.Model
		if _, err := os.Stat(filepath.Join(dir, checkpointFile)); err != nil {
			file = oldCheckpointFile
		}
	}
	if seq2seq.IsRegionEncoder(m.Cfg.Encoder) {
		return nil, fmt.Errorf("experiments: %s is a captioning run (encoder %s): it reads images, not text; its test examples and their attention are in alignments.jsonl and the report", dir, m.Cfg.Encoder)
	}
	t := &Trained{Model: m, Src: tasks.NewVocab(ck.SrcVocab), Tgt: tasks.NewVocab(ck.TgtVocab),
		Checkpoint: file, Step: ck.Step, Select: cfg.Train.Select, Batch: cfg.Train.Batch}
	t.Decode = cfg.Decode
	name, _ := cfg.Task["name"].(string)
	opts := tasks.Options{}
	for k, v := range cfg.Task {
		if k != "name" {
			opts[k] = v
		}
	}
	if task, err := tasks.Build(name, opts); err == nil {
		if tk, ok := task.(tasks.Tokenizer); ok {
			t.Tokenizer = tk
		}
		if sw, ok := task.(tasks.Subworded); ok {
			t.SrcScheme, t.TgtScheme = sw.Schemes()
		}
	}
	return t, nil
}

// Which says which checkpoint the model is, for a user: "best.json (step
// 40, the best dev bleu: [train] select)" or "checkpoint.json (step 150,
// the last)".
func (t *Trained) Which() string {
	if t.Select != "" {
		return fmt.Sprintf("%s (step %d, the best dev %s: [train] select)", t.Checkpoint, t.Step, t.Select)
	}
	return fmt.Sprintf("%s (step %d, the last)", t.Checkpoint, t.Step)
}

// maxLen is the decoding limit for sources of up to longest tokens: the
// run's [decode] max_len, or, as the run's own evaluations, twice the
// longest source it was trained and scored on plus 10 (twice longest plus
// 10 where that is more).
func (t *Trained) maxLen(longest int) int {
	if t.Decode.MaxLen > 0 {
		return t.Decode.MaxLen
	}
	return 2*max(t.Model.Cfg.MaxSrcLen, longest) + 10
}

// tokenize splits input as the task splits its sources (its tokenizer and
// subwords), or at white space for a task without a tokenizer.
func (t *Trained) tokenize(input string) []string {
	if t.Tokenizer != nil {
		return t.Tokenizer.Tokenize(input)
	}
	return strings.Fields(input)
}

// Decoded is one input decoded with its alignment. Where the run's tokens
// are subword pieces, Src, Out and Align are words (as in
// alignments.jsonl) and SrcPieces and OutPieces the pieces.
type Decoded struct {
	Src, Out             []string
	Align                [][]float64 // rows: Out then </s>; columns: Src
	Score                float64
	Unknown              []string // source tokens not in the vocabulary
	SrcPieces, OutPieces []string
	// Seen is the longest source the run was trained and scored on, in
	// tokens, where the input is longer (0 otherwise, or when the run's
	// checkpoint does not record it): attention learnt on short sources
	// often fails past them.
	Seen int
}

// longerThanSeen is the longest source the run saw where n tokens are
// more, else 0.
func (t *Trained) longerThanSeen(n int) int {
	if seen := t.Model.Cfg.MaxSrcLen; seen > 0 && n > seen {
		return seen
	}
	return 0
}

// Decode tokenizes input as the task does and decodes it with beam width
// beam (0: the run's configured beam).
func (t *Trained) DecodeText(input string, beam int) (*Decoded, error) {
	toks := t.tokenize(input)
	if len(toks) == 0 {
		return nil, fmt.Errorf("experiments: the input has no tokens")
	}
	ids := t.Src.Encode(toks)
	d := &Decoded{Src: toks, Seen: t.longerThanSeen(len(ids))}
	for i, id := range ids {
		if id == tasks.UnkID {
			d.Unknown = append(d.Unknown, toks[i])
		}
	}
	if beam <= 0 {
		beam = max(t.Decode.Beam, 1)
	}
	if n, limited := t.Model.MaxSrcLen(); limited && len(ids) > n {
		return nil, fmt.Errorf("experiments: the input has %d tokens; this %s-scorer model handles at most %d", len(ids), t.Model.Cfg.Scorer, n)
	}
	b, err := seq2seq.NewBatch([][]int{ids}, nil)
	if err != nil {
		return nil, err
	}
	cache := seq2seq.NewGraphCache(4)
	defer cache.Close()
	hs, err := t.Model.Beam(b, seq2seq.BeamOptions{Width: beam, MaxLen: t.maxLen(len(ids)), Alpha: t.Decode.Alpha, Cache: cache})
	if err != nil {
		return nil, err
	}
	d.Out, d.Align, d.Score = t.Tgt.Decode(hs[0].Tokens), hs[0].Align, hs[0].Score
	if t.SrcScheme != subword.Words || t.TgtScheme != subword.Words {
		data := &tasks.Data{SrcScheme: t.SrcScheme, TgtScheme: t.TgtScheme}
		w, err := toWords(data, tasks.Example{Src: d.Src}, d.Out, d.Align)
		if err != nil {
			return nil, err
		}
		d.SrcPieces, d.OutPieces = d.Src, d.Out
		d.Src, d.Out, d.Align = w.src, w.hyp, w.align
	}
	return d, nil
}
