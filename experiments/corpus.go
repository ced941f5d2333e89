package experiments

import (
	"context"
	"fmt"
	"strings"

	"github.com/attnzoo/attnzoo/internal/registry"
	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/source"
	"github.com/attnzoo/attnzoo/tasks"
	"github.com/attnzoo/attnzoo/tasks/captioning"
)

// corpus is a run's data, whatever its kind: token sequences (translation)
// or image regions (captioning). The runner trains and evaluates through it.
type corpus interface {
	configure(c *seq2seq.Config) error
	maxSrc() int
	trainLen() int
	trainBatch(idx []int) (*seq2seq.Batch, error)
	// trainLens is training pair i's source length (tokens, or regions)
	// and target length, </s> included: its row of a batch.
	trainLens(i int) (src, tgt int)
	// scoringBatches cuts a split into batches with targets, for perplexity.
	scoringBatches(split string, size int) ([]*seq2seq.Batch, error)
	// scoring scores a split's decoded examples (evaluate); a kept
	// example's files go under the run folder dir.
	scoring(split, dir string) scoring
	vocabs() (src, tgt []string)
	// alignment scores a split's attention under forced decoding of the
	// reference (align.go), with its baselines; nil when the task has no
	// gold alignments or boxes.
	alignment(m *seq2seq.Model, split string, batch, shift int, cache *seq2seq.GraphCache, dir string) (map[string]float64, error)
}

// corpusLoader builds a run's corpus from its task's data; it stops with
// ctx's error when ctx is done, and so do the corpus's alignments.
type corpusLoader func(ctx context.Context, task tasks.Named, r *Run) (corpus, error)

// corpora are the loaders by the kind of task they read (tasks.Kind).
var corpora = registry.New[corpusLoader]("experiments: corpus")

func init() {
	corpora.Register(string(tasks.Translation), newTextCorpus)
	corpora.Register(string(tasks.Captioning), loadCaptionCorpus)
}

// Corpora returns the kinds of task the runner trains on, sorted.
func Corpora() []string { return corpora.Names() }

// loadCorpus loads a run's task data.
func loadCorpus(ctx context.Context, r *Run) (corpus, error) {
	info, ok := tasks.InfoOf(r.TaskID)
	if !ok {
		return nil, fmt.Errorf("unknown task %q (have: %s)", r.TaskID, strings.Join(tasks.Names(), ", "))
	}
	build, ok := corpora.Get(string(info.Kind))
	if !ok {
		return nil, fmt.Errorf("task %s is of kind %q, which the runner cannot train on (have: %s)", r.TaskID, info.Kind, strings.Join(Corpora(), ", "))
	}
	task, err := tasks.Build(r.TaskID, r.Task)
	if err != nil {
		return nil, err
	}
	return build(ctx, task, r)
}

// newTextCorpus loads a translation task's data.
func newTextCorpus(ctx context.Context, task tasks.Named, r *Run) (corpus, error) {
	data, err := tasks.LoadContext(ctx, task.(tasks.Task), r.Seed)
	if err != nil {
		return nil, err
	}
	c := &textCorpus{ctx: ctx, data: data, bleuTok: r.Decode.BLEUTokenize, train: data.Split("train"), dev: data.Split("dev"), test: data.Split("test")}
	if l, ok := task.(tasks.Lowercaser); ok {
		c.lower = l.Lowercases()
	}
	if c.train.Len() == 0 || c.dev.Len() == 0 || c.test.Len() == 0 {
		return nil, fmt.Errorf("task %s gave %d training, %d dev and %d test examples: every split needs some (dev is evaluated every eval_every steps)", r.TaskID, c.train.Len(), c.dev.Len(), c.test.Len())
	}
	return c, nil
}

// loadCaptionCorpus loads a captioning task's data.
func loadCaptionCorpus(ctx context.Context, task tasks.Named, r *Run) (corpus, error) {
	data, err := captioning.LoadContext(ctx, task.(captioning.Task), r.Seed)
	if err != nil {
		return nil, err
	}
	return newCaptionCorpus(ctx, data, r)
}

// textCorpus is a translation task's data.
type textCorpus struct {
	ctx              context.Context // stops alignment
	data             *tasks.Data
	bleuTok          string      // [decode] bleu_tokenize
	lower            bool        // the task lowercases its text (tasks.Lowercaser)
	train, dev, test tasks.Pairs // read through: ids are made for each batch, so a corpus held as token ids is not copied
}

func (c *textCorpus) split(name string) tasks.Pairs {
	return tasks.PickSplit(name, c.train, c.dev, c.test)
}

// ids returns pairs lo to hi of sp as ids; targets only if tgt.
func ids(sp tasks.Pairs, lo, hi int, tgt bool) (src, tg [][]int) {
	src = make([][]int, hi-lo)
	if tgt {
		tg = make([][]int, hi-lo)
	}
	for i := lo; i < hi; i++ {
		s, t := sp.IDs(i)
		src[i-lo] = s
		if tgt {
			tg[i-lo] = t
		}
	}
	return src, tg
}

func (c *textCorpus) configure(cfg *seq2seq.Config) error {
	cfg.SrcVocab, cfg.TgtVocab, cfg.MaxSrcLen = c.data.SrcVocab.Len(), c.data.TgtVocab.Len(), c.maxSrc()
	if seq2seq.IsRegionEncoder(cfg.Encoder) {
		return fmt.Errorf("encoder %q reads image regions; a translation task needs one that reads tokens (%s)", cfg.Encoder, strings.Join(seq2seq.EncodersReading(source.Tokens), ", "))
	}
	return nil
}

func (c *textCorpus) maxSrc() int {
	n := 0
	for _, sp := range []tasks.Pairs{c.train, c.dev, c.test} {
		for i := range sp.Len() {
			s, _ := sp.Lens(i)
			n = max(n, s)
		}
	}
	return n
}

func (c *textCorpus) trainLen() int { return c.train.Len() }

func (c *textCorpus) trainLens(i int) (int, int) {
	s, t := c.train.Lens(i)
	return s, t + 1
}

func (c *textCorpus) trainBatch(idx []int) (*seq2seq.Batch, error) {
	src, tgt := make([][]int, len(idx)), make([][]int, len(idx))
	for i, j := range idx {
		src[i], tgt[i] = c.train.IDs(j)
	}
	return seq2seq.NewBatch(src, tgt)
}

func (c *textCorpus) scoringBatches(split string, size int) ([]*seq2seq.Batch, error) {
	sp := c.split(split)
	var out []*seq2seq.Batch
	for i := 0; i < sp.Len(); i += size {
		src, tgt := ids(sp, i, min(i+size, sp.Len()), true)
		b, err := seq2seq.NewBatch(src, tgt)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func (c *textCorpus) scoring(split, _ string) scoring {
	return &textScoring{data: c.data, sp: c.split(split), bleuTok: c.bleuTok, lower: c.lower}
}

func (c *textCorpus) vocabs() ([]string, []string) {
	return c.data.SrcVocab.Tokens(), c.data.TgtVocab.Tokens()
}
