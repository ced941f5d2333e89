package captioning

import (
	"context"

	"github.com/attnzoo/attnzoo/tasks"
)

// ContextLoader is implemented by tasks whose Load can stop early:
// LoadContext returns ctx's error soon after ctx is done. Every task of
// this package implements it.
type ContextLoader interface {
	LoadContext(ctx context.Context, seed int64) (*Data, error)
}

// LoadContext loads t's data, stopping early when ctx is done if t is a
// ContextLoader; otherwise it loads all of it and then reports ctx's error.
func LoadContext(ctx context.Context, t Task, seed int64) (*Data, error) {
	return tasks.LoadWith[*Data](ctx, t, seed)
}

// finish builds the vocabulary from the training captions.
func finish(ctx context.Context, d *Data, minCount, maxSize int) error {
	caps := make([][]string, len(d.Train))
	for i, ex := range d.Train {
		caps[i] = ex.Caption
	}
	var err error
	d.Vocab, err = tasks.BuildVocabContext(ctx, caps, minCount, maxSize)
	return err
}
