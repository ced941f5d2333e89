package seq2seq

import "fmt"

// Batch is B source sequences padded to S tokens and, for training, their
// targets: TgtIn = <s> y_1 … y_n and TgtOut = y_1 … y_n </s>, padded to T.
type Batch struct {
	Src           [][]int
	TgtIn, TgtOut [][]int
	srcLen        []int

	// Region sources (NewRegionBatch): B rows of S × RegionSize values.
	Regions    [][]float32
	RegionSize int
	tgtLen     []int // n + 1 (the </s>)

	// Image sources (NewImageBatch): B rows of H·W·C pixels (cnn encoder).
	Pixels [][]float32
}

// NewBatch pads token-id sequences into a batch. tgt may be nil (decoding).
// An empty source is an error naming its index.
func NewBatch(src, tgt [][]int) (*Batch, error) {
	if len(src) == 0 {
		return nil, fmt.Errorf("seq2seq: empty batch")
	}
	if tgt != nil && len(tgt) != len(src) {
		return nil, fmt.Errorf("seq2seq: %d sources but %d targets", len(src), len(tgt))
	}
	b := &Batch{srcLen: make([]int, len(src))}
	S := 0
	for i, s := range src {
		if len(s) == 0 {
			return nil, fmt.Errorf("seq2seq: source %d is empty", i)
		}
		b.srcLen[i] = len(s)
		S = max(S, len(s))
	}
	b.Src = make([][]int, len(src))
	for i, s := range src {
		b.Src[i] = make([]int, S)
		copy(b.Src[i], s)
	}
	if tgt == nil {
		return b, nil
	}
	T := 0
	b.tgtLen = make([]int, len(tgt))
	for i, t := range tgt {
		b.tgtLen[i] = len(t) + 1
		T = max(T, len(t)+1)
	}
	b.TgtIn = make([][]int, len(tgt))
	b.TgtOut = make([][]int, len(tgt))
	for i, t := range tgt {
		in, out := make([]int, T), make([]int, T)
		in[0] = BosID
		copy(in[1:], t)
		copy(out, t)
		out[len(t)] = EosID
		b.TgtIn[i], b.TgtOut[i] = in, out
	}
	return b, nil
}

// Size is B.
func (b *Batch) Size() int { return len(b.Src) }

// SrcLen is S, the padded source length.
func (b *Batch) SrcLen() int { return len(b.Src[0]) }

// TgtLen is T, the padded target length (with </s>).
func (b *Batch) TgtLen() int {
	if len(b.TgtIn) == 0 {
		return 0
	}
	return len(b.TgtIn[0])
}

// SrcLens are the unpadded source lengths.
func (b *Batch) SrcLens() []int { return b.srcLen }

// Tokens counts the target tokens the loss averages over (with </s>).
func (b *Batch) Tokens() int {
	n := 0
	for _, l := range b.tgtLen {
		n += l
	}
	return n
}

// PadTo pads a token batch to at least S source and T target positions
// (with </s>), and a region or image batch's targets to T. The padding is
// masked like any other (the lengths stay), so the loss and its gradients
// are the unpadded batch's; batches padded to a few lengths share compiled
// graphs (GraphCache keys on the shape).
func (b *Batch) PadTo(S, T int) {
	if b.Regions == nil && b.Pixels == nil {
		for i, s := range b.Src {
			b.Src[i] = padRow(s, S)
		}
	}
	for i := range b.TgtIn {
		b.TgtIn[i], b.TgtOut[i] = padRow(b.TgtIn[i], T), padRow(b.TgtOut[i], T)
	}
}

// padRow extends row with PadID to n entries; a row as long already is kept.
func padRow(row []int, n int) []int {
	for len(row) < n {
		row = append(row, PadID)
	}
	return row
}
