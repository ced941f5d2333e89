package experiments

import (
	"fmt"
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
}

// LoadRun loads a run folder's checkpoint and configuration.
func LoadRun(dir string) (*Trained, error) {
	m, st, err := readState(dir)
	if err != nil {
		return nil, err
	}
	if seq2seq.IsRegionEncoder(m.Cfg.Encoder) {
		return nil, fmt.Errorf("experiments: %s is a captioning run (encoder %s): it reads images, not text; its test examples and their attention are in alignments.jsonl and the report", dir, m.Cfg.Encoder)
	}
	t := &Trained{Model: m, Src: tasks.NewVocab(st.Model.SrcVocab), Tgt: tasks.NewVocab(st.Model.TgtVocab)}
	var cfg runConfigTOML
	cpath := filepath.Join(dir, "config.toml")
	if _, err := toml.DecodeFile(cpath, &cfg); err != nil {
		return nil, fmt.Errorf("experiments: %s: %w", cpath, err)
	}
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

// Decoded is one input decoded with its alignment. Where the run's tokens
// are subword pieces, Src, Out and Align are words (as in
// alignments.jsonl) and SrcPieces and OutPieces the pieces.
type Decoded struct {
	Src, Out             []string
	Align                [][]float64 // rows: Out then </s>; columns: Src
	Score                float64
	Unknown              []string // source tokens not in the vocabulary
	SrcPieces, OutPieces []string
}

// Decode tokenizes input as the task does and decodes it with beam width
// beam (0: the run's configured beam).
func (t *Trained) DecodeText(input string, beam int) (*Decoded, error) {
	var toks []string
	if t.Tokenizer != nil {
		toks = t.Tokenizer.Tokenize(input)
	} else {
		toks = strings.Fields(input)
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("experiments: the input has no tokens")
	}
	d := &Decoded{Src: toks}
	ids := t.Src.Encode(toks)
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
	maxLen := t.Decode.MaxLen
	if maxLen == 0 {
		maxLen = 2*len(ids) + 10
	}
	cache := seq2seq.NewGraphCache(4)
	defer cache.Close()
	hs, err := t.Model.Beam(b, seq2seq.BeamOptions{Width: beam, MaxLen: maxLen, Alpha: t.Decode.Alpha, Cache: cache})
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
