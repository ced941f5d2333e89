package device

import "github.com/attnzoo/attnzoo/internal/backend"

// The Gather family (backend/gather.go has the equations; kernels/seq.cl).
//
// EmbedGrad adds no two rows at once into one place: embed_grad's
// work-item for an id's first position (and a column) sums the id's rows
// in ascending n, into a zero-filled dE (or into dE as it is, with acc):
// the host's sums in the host's order, bit for bit, in O(N²·D + V·D) work
// and one launch (two with the fill).
//
// Token ids are read as the host reads them (kernels/seq.cl, token_id).
// The host's Embed fails on an id that is not a whole number in [0, V);
// the device gives that row NaN instead of an error, which would cost a
// read back (a wait for the device) per Embed and run. No such id reaches
// it from seq2seq: Model.checkBatch checks every source id up to its
// length (the rest is PadID) and every target id before a run, TgtIn is
// built from those ids and BosID/PadID (below tgt_vocab by Config's
// check), and decoding feeds back ids it chose among [0, V) (ArgmaxLast,
// the beam). A NaN that does arrive spreads to the loss, which the trainer
// refuses (Trainer.Step).
//
// Im2Col and Col2Im compute the positions from the geometry (conv_src);
// Col2Im visits the rows that read a position in ascending order, the
// host's order of addition.

func (o *OpenCL) Embed(out, E, ids backend.Buf, V, D, N int) error {
	return o.Kernel("embed", N*D, out, E, ids, V, D, N)
}

func (o *OpenCL) EmbedGrad(dE, g, ids backend.Buf, V, D, N int, acc bool) error {
	if !acc {
		if err := o.Fill(dE, 0, V*D); err != nil {
			return err
		}
	}
	return o.Kernel("embed_grad", N*D, dE, g, ids, V, D, N, flag(acc))
}

func (o *OpenCL) Im2Col(out, x backend.Buf, geo backend.ConvGeom, B, C int) error {
	ho, wo := geo.Out()
	R := ho * wo * geo.K * geo.K
	n := B * R * C
	return o.Kernel("im2col", n, out, x, geo.H, geo.W, geo.K, geo.Stride, geo.Pad, wo, R, C, n)
}

func (o *OpenCL) Col2Im(out, g backend.Buf, geo backend.ConvGeom, B, C int) error {
	ho, wo := geo.Out()
	n := B * geo.H * geo.W * C
	return o.Kernel("col2im", n, out, g, geo.H, geo.W, geo.K, geo.Stride, geo.Pad, ho, wo, C, n)
}
