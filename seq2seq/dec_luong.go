package seq2seq

import (
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/scorers"
)

// luong is Luong et al.'s (2015) decoder with input feeding: h_t from
// [y_{t−1}; h̃_{t−1}], attend with h_t,
//
//	h_t = cell([y_{t−1}; h̃_{t−1}], h_{t−1});  c_t = attend(h_t)
//	h̃_t = tanh(W_c [c_t; h_t])   (fed to the next step)
//
// With stacked layers (Luong et al.'s four), h_t is the top layer's output,
// and h̃_{t−1} joins the bottom layer's input.
type luong struct{}

func init() { RegisterDecoder("luong", luong{}) }

func (luong) Feeds() bool { return true }

func (luong) Step(g *gx.Graph, p DecoderParts, y *gx.Node, st DecoderState) (DecoderState, *gx.Node, scorers.Step) {
	next := p.Cell([]*gx.Node{y, st.Feed}, st)
	att := p.Attend(next.Cell.H)
	out := p.Layer(next.Cell.H, att.Context)
	next.Feed = out
	return next, out, att
}
