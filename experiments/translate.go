package experiments

import (
	"context"
	"fmt"

	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/tasks"
)

// TranslateOptions are Translate's settings; the length penalty is the
// run's [decode] alpha (Trained.Decode).
type TranslateOptions struct {
	Beam  int // beam width; 0: the run's [decode] beam (1: greedy)
	Batch int // lines decoded together; 0: the run's [train] batch, as its evaluations
	// Progress, if set, is called after each batch with the lines done
	// and the lines in all.
	Progress func(done, total int)
}

// Translated is what Translate made of its input.
type Translated struct {
	Lines   []string // one output line per input line
	Unknown int      // input lines with a token not in the vocabulary (read as <unk>)
	// Longer counts the input lines longer than every source the run was
	// trained and scored on, Seen tokens at most (Decoded.Seen).
	Longer, Seen int
}

// Translate translates lines, one sentence each, as the run's own
// evaluation decodes its test split: each line tokenized as the task
// tokenizes its sources (its tokenizer and subwords), decoded in order Batch
// lines at a time with the run's decoding limit, and written as textLine
// writes it, subword pieces joined into words. So the test split's sources
// come out as the run's test.hyp, line for line, with the default
// options. A line with no token gives an empty line.
func (t *Trained) Translate(ctx context.Context, lines []string, o TranslateOptions) (*Translated, error) {
	beam := o.Beam
	if beam <= 0 {
		beam = max(t.Decode.Beam, 1)
	}
	batch := o.Batch
	if batch <= 0 {
		batch = max(t.Batch, 1)
	}
	out := &Translated{Lines: make([]string, len(lines))}
	var todo []int // the lines with tokens, in order
	ids := make([][]int, len(lines))
	for i, l := range lines {
		toks := t.tokenize(l)
		if len(toks) == 0 {
			continue
		}
		ids[i] = t.Src.Encode(toks)
		for _, id := range ids[i] {
			if id == tasks.UnkID {
				out.Unknown++
				break
			}
		}
		if seen := t.longerThanSeen(len(ids[i])); seen > 0 {
			out.Longer, out.Seen = out.Longer+1, seen
		}
		if n, limited := t.Model.MaxSrcLen(); limited && len(ids[i]) > n {
			return nil, fmt.Errorf("experiments: line %d has %d tokens; this %s-scorer model handles at most %d", i+1, len(ids[i]), t.Model.Cfg.Scorer, n)
		}
		todo = append(todo, i)
	}
	cache := seq2seq.NewGraphCache(4)
	defer cache.Close()
	for k := 0; k < len(todo); k += batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		part := todo[k:min(k+batch, len(todo))]
		src, longest := make([][]int, len(part)), 0
		for j, i := range part {
			src[j], longest = ids[i], max(longest, len(ids[i]))
		}
		b, err := seq2seq.NewBatch(src, nil)
		if err != nil {
			return nil, err
		}
		eo := evalOptions{Beam: beam, MaxLen: t.maxLen(longest), Alpha: t.Decode.Alpha, Cache: cache}
		hs, err := decodeBatch(t.Model, b, eo, new(seq2seq.AttnStats))
		if err != nil {
			return nil, fmt.Errorf("experiments: lines %d to %d: %w", part[0]+1, part[len(part)-1]+1, err)
		}
		for j, i := range part {
			out.Lines[i] = textLine(t.TgtScheme.Join(t.Tgt.Decode(hs[j].Tokens)))
		}
		if o.Progress != nil {
			done := part[len(part)-1] + 1
			if k+batch >= len(todo) {
				done = len(lines)
			}
			o.Progress(done, len(lines))
		}
	}
	return out, nil
}
