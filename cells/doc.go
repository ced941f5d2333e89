// Package cells holds the recurrent cells of the encoders and decoders
// (rnn, gru, lstm) behind one small interface and a registry, in the shape of
// package scorers.
//
// Shape conventions: a step input x_j is [B, In_j] (Config.Inputs[j]); the
// state H, and the LSTM's memory C, are [B, Hidden]. A cell's input weights
// are one matrix per input, W_j [G·Hidden, In_j], with the G gates' rows
// stacked in PyTorch's order; together they equal one matrix on the
// concatenated input [x_1; x_2; ...] without building the concatenation.
// Matrices map rows: W x is computed as x·Wᵀ (gx.Graph.Linear).
//
// Step adds one time step to a graph; unrolling a sequence is a loop of
// Steps. A cell that can also run a whole sequence in one fused op says so
// by implementing Sequencer (gru does); the encoders use it when it is
// there. Errors (wrong shapes, a missing LSTM memory) are recorded in the
// graph (gx.Graph.Err), never panics.
package cells
