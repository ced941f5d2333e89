package scorers

// CostSizes are the sizes a run's memory formula gives a scorer's Cost
// (package experiments' estimate, used where the model's graphs cannot be
// planned): the batch, the decoder's hidden size (the query's and the
// keys'), the setting "attention" (A) and the longest source S.
type CostSizes struct {
	Batch, Hidden, Attention, S float64
}

// Cost is a scorer's part of a run's memory by formula, in values.
type Cost struct {
	Params  float64 // its parameters
	KeySide float64 // its key-side tensor of a training graph (the projected keys)
	PerPos  float64 // values per source position and decoder step besides the scores'
	// Tensors are its tensors worth naming as a run's largest, in order.
	Tensors []Tensor
}

// Tensor is a named tensor of a Cost.
type Tensor struct {
	Name   string
	Values float64
}

// Coster is implemented by scorers that tell their memory formula; an
// estimate counts a scorer that does not as concat.
type Coster interface {
	Cost(s CostSizes) Cost
}

// CostOf returns the named (or aliased) scorer's memory formula at the
// given sizes, read from a scorer of size 4 (a Cost reads only s); false
// for an unknown scorer or one that is no Coster.
func CostOf(name string, s CostSizes) (Cost, bool) {
	sc, err := New(name, Config{Query: 4, Key: 4, MaxLen: 4})
	if err != nil {
		return Cost{}, false
	}
	c, ok := sc.(Coster)
	if !ok {
		return Cost{}, false
	}
	return c.Cost(s), true
}
