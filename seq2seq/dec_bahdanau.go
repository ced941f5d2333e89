package seq2seq

import (
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/scorers"
)

// bahdanau is Bahdanau et al.'s (2015) decoder: attend with s_{t−1}, and
// the context c_t joins the cell's input,
//
//	c_t = attend(s_{t−1});  s_t = cell([y_{t−1}; c_t], s_{t−1})
//
// With stacked layers, s is the top layer's state (the query and the
// attentional layer's input) and c_t joins the bottom layer's input.
//
// Its attentional layer depends on nothing later, so the training graph
// computes it for every step at once.
type bahdanau struct{}

func init() { RegisterDecoder("bahdanau", bahdanau{}) }

func (bahdanau) Feeds() bool { return false }

func (bahdanau) Step(g *gx.Graph, p DecoderParts, y *gx.Node, st DecoderState) (DecoderState, *gx.Node, scorers.Step) {
	att := p.Attend(st.Cell.H)
	return p.Cell([]*gx.Node{y, att.Context}, st), nil, att
}
