package seq2seq

import "fmt"

// Batch is B sources, each attended over at S positions, and for training
// their targets: TgtIn = <s> y_1 … y_n and TgtOut = y_1 … y_n </s>, padded
// to T. The sources are token ids (Src, NewBatch) for an encoder of
// tokens, or what an encoder of images or features prepared of each
// (Values, NewValueBatch: EncoderInfo.Prepare), which the encoder alone
// reads.
type Batch struct {
	Src           [][]int     // token ids padded to S; nil for prepared sources
	Values        [][]float32 // prepared sources, one row each; nil for tokens
	TgtIn, TgtOut [][]int
	srcLen        []int
	tgtLen        []int // n + 1 (the </s>)
	s             int   // S
}

// NewBatch pads token-id sequences into a batch. tgt may be nil (decoding).
// An empty source is an error naming its index.
func NewBatch(src, tgt [][]int) (*Batch, error) {
	if len(src) == 0 {
		return nil, fmt.Errorf("seq2seq: empty batch")
	}
	b := &Batch{srcLen: make([]int, len(src))}
	for i, s := range src {
		if len(s) == 0 {
			return nil, fmt.Errorf("seq2seq: source %d is empty", i)
		}
		b.srcLen[i] = len(s)
		b.s = max(b.s, len(s))
	}
	if err := b.setTargets(tgt); err != nil {
		return nil, err
	}
	b.Src = make([][]int, len(src))
	for i, s := range src {
		b.Src[i] = make([]int, b.s)
		copy(b.Src[i], s)
	}
	return b, nil
}

// NewValueBatch makes a batch of B sources that an encoder prepared
// (EncoderInfo.Prepare: a row of values each, which it alone reads), each
// attended over at all of its S positions (regions, or a grid's cells),
// with their targets (nil for decoding). The encoder's CheckBatch checks
// the rows' length.
func NewValueBatch(values [][]float32, S int, tgt [][]int) (*Batch, error) {
	if len(values) == 0 {
		return nil, fmt.Errorf("seq2seq: empty batch")
	}
	if S <= 0 {
		return nil, fmt.Errorf("seq2seq: sources of %d positions", S)
	}
	b := &Batch{Values: values, srcLen: make([]int, len(values)), s: S}
	for i := range b.srcLen {
		b.srcLen[i] = S
	}
	if err := b.setTargets(tgt); err != nil {
		return nil, err
	}
	return b, nil
}

// setTargets sets the targets of a batch whose sources are set (tgt nil:
// none, for decoding).
func (b *Batch) setTargets(tgt [][]int) error {
	if tgt == nil {
		return nil
	}
	if len(tgt) != len(b.srcLen) {
		return fmt.Errorf("seq2seq: %d sources but %d targets", len(b.srcLen), len(tgt))
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
	return nil
}

// Size is B.
func (b *Batch) Size() int { return len(b.srcLen) }

// SrcLen is S, the padded source length.
func (b *Batch) SrcLen() int { return b.s }

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
// (with </s>), and a batch of prepared sources' targets to T. The padding
// is masked like any other (the lengths stay), so the loss and its
// gradients are the unpadded batch's; batches padded to a few lengths
// share compiled graphs (GraphCache keys on the shape).
func (b *Batch) PadTo(S, T int) {
	if b.Src != nil {
		for i, s := range b.Src {
			b.Src[i] = padRow(s, S)
		}
		b.s = len(b.Src[0])
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
