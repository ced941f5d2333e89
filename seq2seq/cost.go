package seq2seq

import "github.com/attnzoo/attnzoo/source"

// CostSizes are the sizes a run's memory formula gives an encoder's Cost
// (package experiments' estimate, used where the model's graphs cannot be
// planned: the task cannot tell its sizes, or the model is too large to
// build).
type CostSizes struct {
	Batch, Embed, Hidden float64
	Layers               float64 // [model] layers (0 counts as 1)
	Gates                float64 // the cell's gates: 1 rnn, 3 gru, 4 lstm
	MaxSrc, SrcVocab     float64 // the longest source in tokens; the source vocabulary with the specials
	Shape                source.Shape
	// CellParams counts the parameters of one of the model's cells with
	// in inputs and h units.
	CellParams func(in, h float64) float64
}

// Cost is an encoder's part of a run's memory by formula, in values.
type Cost struct {
	Params      float64 // its parameters
	Activations float64 // a training graph's, but for the annotations (the estimate adds 3·B·S·Hidden)
	S           float64 // the positions the decoder attends over
	// Largest is its largest tensor and what it is ("" if none is worth
	// naming): the first of the largest, as the estimate reports them.
	Largest     float64
	LargestName string
}

// largest keeps the first of the largest tensors.
func (c *Cost) largest(name string, values float64) {
	if values > c.Largest {
		c.Largest, c.LargestName = values, name
	}
}

// regionProjection adds the region encoders' projection W_r [H, rs], b_r.
func (c *Cost) regionProjection(H, rs float64) { c.Params += H*rs + H }
