package gx

import (
	"github.com/attnzoo/attnzoo/internal/device"
	"gorgonia.org/tensor"
)

// Sequence plumbing on a device (ops_seq.go, ops_rows.go, ops_bias.go have
// the equations): every op that moves values is one or more block copies
// (kernels/seq.cl, copy2d: rows × cols values between two row strides),
// after a zero fill where the host op starts from zeros. SumRows sums a
// matrix's rows; AddBias adds b to every row.
//
//	Embed:      out[n, :] = E[ids[n], :]
//	EmbedGrad:  dE[v, :] = Σ_{n: ids[n] = v} g[n, :]
//
// EmbedGrad adds no two rows at once into one place: embed_links lists, for
// each id, its positions in ascending order (link[n]: the next position
// with the same id) and marks its first one; embed_grad then sums each
// list from its first position, into a zero-filled dE: the host's sums in
// the host's order, bit for bit, in O(N² + N·D + V·D) work.
//
// Token ids are read as the host ops read them (kernels/seq.cl, token_id).
// The host's Embed fails on an id that is not a whole number in [0, V);
// the device gives that row NaN instead of an error, which would cost a
// read back (a wait for the device) per Embed and run. No such id reaches
// it from seq2seq: Model.checkBatch checks every source id up to its
// length (the rest is PadID) and every target id before a run, TgtIn is
// built from those ids and BosID/PadID (below tgt_vocab by Config's
// check), and decoding feeds back ids it chose among [0, V) (ArgmaxLast,
// the beam). A NaN that does arrive spreads to the loss, which the trainer
// refuses (Trainer.Step).

// copy2d copies a rows × cols block; nothing for an empty block.
func copy2d(k kernelRunner, dst device.Buffer, dOff, dLd int, src device.Buffer, sOff, sLd, rows, cols int) error {
	if rows*cols == 0 {
		return nil
	}
	return k.Kernel("copy2d", rows*cols, dst, dOff, dLd, src, sOff, sLd, rows, cols)
}

func zero(k kernelRunner, b device.Buffer, n int) error { return k.Kernel("fill", n, b, float32(0), n) }

func (op *stackRowsOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	n := size(in[0])
	return func(out device.Buffer, a []device.Buffer) error {
		for t, x := range a {
			if err := copy2d(k, out, t*n, n, x, 0, n, 1, n); err != nil {
				return err
			}
		}
		return nil
	}
}

func (op *rowsOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	H, lo, hi := in[0][1], op.lo, op.hi
	return func(out device.Buffer, a []device.Buffer) error {
		return copy2d(k, out, 0, 0, a[0], lo*H, 0, 1, (hi-lo)*H)
	}
}

func (op *padRowsOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	H, lo, N, n := in[0][1], op.lo, op.n, size(in[0])
	return func(out device.Buffer, a []device.Buffer) error {
		if err := zero(k, out, N*H); err != nil {
			return err
		}
		return copy2d(k, out, lo*H, 0, a[0], 0, 0, 1, n)
	}
}

func (op *stackOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	B, H, S := in[0][0], in[0][1], len(in)
	return func(out device.Buffer, a []device.Buffer) error {
		for t, x := range a {
			if err := copy2d(k, out, t*H, S*H, x, 0, H, B, H); err != nil {
				return err
			}
		}
		return nil
	}
}

func (op *takeStepOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	B, S, H, t := in[0][0], in[0][1], in[0][2], op.t
	return func(out device.Buffer, a []device.Buffer) error {
		return copy2d(k, out, 0, H, a[0], t*H, S*H, B, H)
	}
}

func (op *putStepOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	B, H, S, t := in[0][0], in[0][1], op.S, op.t
	return func(out device.Buffer, a []device.Buffer) error {
		if err := zero(k, out, B*S*H); err != nil {
			return err
		}
		return copy2d(k, out, t*H, S*H, a[0], 0, H, B, H)
	}
}

func (op *concatLastOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	H1, H2 := last(in[0]), last(in[1])
	N := size(in[0]) / H1
	return func(out device.Buffer, a []device.Buffer) error {
		if err := copy2d(k, out, 0, H1+H2, a[0], 0, H1, N, H1); err != nil {
			return err
		}
		return copy2d(k, out, H1, H1+H2, a[1], 0, H2, N, H2)
	}
}

func (op *sliceLastOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	H, lo, W := last(in[0]), op.lo, op.hi-op.lo
	N := size(in[0]) / H
	return func(out device.Buffer, a []device.Buffer) error {
		return copy2d(k, out, 0, W, a[0], lo, H, N, W)
	}
}

func (op *padLastOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	W, lo, H := last(in[0]), op.lo, op.H
	N := size(in[0]) / W
	return func(out device.Buffer, a []device.Buffer) error {
		if err := zero(k, out, N*H); err != nil {
			return err
		}
		return copy2d(k, out, lo, H, a[0], 0, W, N, W)
	}
}

func (op *embedOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	V, D, N := in[0][0], in[0][1], in[1][0]
	return oneKernel(d, "embed", N*D, false, V, D, N)
}

func (op *embedGradOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	N, D, V := in[0][0], in[0][1], op.V
	var link device.Buffer // 2N ints (embed_links), the op's own
	return func(out device.Buffer, a []device.Buffer) error {
		if link == nil {
			var err error
			if link, err = d.Alloc(2 * N); err != nil {
				return err
			}
		}
		if err := zero(k, out, V*D); err != nil {
			return err
		}
		if err := k.Kernel("embed_links", N, link, a[1], V, N); err != nil {
			return err
		}
		return k.Kernel("embed_grad", N*D, out, a[0], link, D, N)
	}
}

// upload returns a buffer holding vals, written on first use.
func upload(d device.Kernels, vals []float32) func() (device.Buffer, error) {
	var b device.Buffer
	return func() (device.Buffer, error) {
		if b == nil {
			nb, err := d.Alloc(max(1, len(vals)))
			if err != nil {
				return nil, err
			}
			if len(vals) > 0 {
				if err := d.Write(nb, vals); err != nil {
					return nil, err
				}
			}
			b = nb
		}
		return b, nil
	}
}

// Im2Col gathers with the op's source map on the device; Col2Im sums, for
// each input position, the rows that read it, listed ascending (the host's
// order of addition) in a map built once from the same sources.
func (op *im2colOp) onDevice(d device.Kernels, in []tensor.Shape, out tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	src := make([]float32, len(op.src))
	for i, v := range op.src {
		src[i] = float32(v)
	}
	srcB := upload(d, src)
	L, C, R, n := in[0][1], in[0][2], len(op.src), size(out)
	return func(o device.Buffer, a []device.Buffer) error {
		s, err := srcB()
		if err != nil {
			return err
		}
		return k.Kernel("im2col", n, o, a[0], s, R, L, C, n)
	}
}

func (op *col2imOp) onDevice(d device.Kernels, in []tensor.Shape, out tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	L, R := op.geo.H*op.geo.W, len(op.src)
	off := make([]float32, L+1)
	for _, i := range op.src {
		if i >= 0 {
			off[i+1]++
		}
	}
	for i := 1; i <= L; i++ {
		off[i] += off[i-1]
	}
	rows, next := make([]float32, int(off[L])), append([]float32(nil), off[:L]...)
	for r, i := range op.src {
		if i >= 0 {
			rows[int(next[i])] = float32(r)
			next[i]++
		}
	}
	offB, rowsB := upload(d, off), upload(d, rows)
	C, n := last(out), size(out)
	return func(o device.Buffer, a []device.Buffer) error {
		ob, err := offB()
		if err != nil {
			return err
		}
		rb, err := rowsB()
		if err != nil {
			return err
		}
		return k.Kernel("col2im", n, o, a[0], ob, rb, R, L, C, n)
	}
}
