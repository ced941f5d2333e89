package tasks

import (
	"context"
	"io"
)

// ContextLoader is implemented by tasks whose Load can stop early: LoadContext
// returns ctx's error soon after ctx is done (its loops check every
// checkEvery examples). Every task of this package implements it.
type ContextLoader interface {
	LoadContext(ctx context.Context, seed int64) (*Data, error)
}

// checkEvery is how many examples a loop handles between looks at its
// context: a few milliseconds of work at most.
const checkEvery = 1024

// LoadContext loads t's data, stopping early when ctx is done if t is a
// ContextLoader; otherwise it loads all of it and then reports ctx's error.
func LoadContext(ctx context.Context, t Task, seed int64) (*Data, error) {
	return LoadWith[*Data](ctx, t, seed)
}

// Loader is a task of any kind: Load gives its data, of type D, for a seed.
type Loader[D any] interface {
	Load(seed int64) (D, error)
}

// LoadWith is LoadContext for a task of any kind (package captioning's
// too): it loads t's data, stopping early when ctx is done if t also has
// LoadContext(ctx, seed) (D, error); otherwise it loads all of it and then
// reports ctx's error.
func LoadWith[D any](ctx context.Context, t Loader[D], seed int64) (D, error) {
	if cl, ok := t.(interface {
		LoadContext(ctx context.Context, seed int64) (D, error)
	}); ok {
		return cl.LoadContext(ctx, seed)
	}
	d, err := t.Load(seed)
	if err == nil && ctx.Err() != nil {
		var none D
		return none, ctx.Err()
	}
	return d, err
}

// ContextReader reads from r until ctx is done, then fails with ctx's
// error: a long parse of a file stops when the context does.
func ContextReader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

// ctxReader reads from r until ctx is done, then fails with ctx's error.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
