package gx

import "github.com/attnzoo/attnzoo/internal/device"

// What is left of the sequence plumbing's device code (the ops of
// ops_seq.go and ops_rows.go run on the backend: backend.Copy and
// backend.Gather): the block copy and zero fill the GRU ops' onDevice use.

// copy2d copies a rows × cols block; nothing for an empty block.
func copy2d(k kernelRunner, dst device.Buffer, dOff, dLd int, src device.Buffer, sOff, sLd, rows, cols int) error {
	if rows*cols == 0 {
		return nil
	}
	return k.Kernel("copy2d", rows*cols, dst, dOff, dLd, src, sOff, sLd, rows, cols)
}

func zero(k kernelRunner, b device.Buffer, n int) error { return k.Kernel("fill", n, b, float32(0), n) }
