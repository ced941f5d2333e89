package gx

import (
	"math"
	"math/rand/v2"

	"gorgonia.org/tensor"
)

// Param is a named parameter tensor that lives outside any graph.
type Param struct {
	Name  string
	Value *tensor.Dense
}

// NewParam returns a zero parameter of the given dtype and shape.
func NewParam(name string, dt tensor.Dtype, shape ...int) *Param {
	return &Param{Name: name, Value: tensor.New(tensor.WithShape(shape...), tensor.Of(dt))}
}

// Shape is the parameter's shape.
func (p *Param) Shape() []int { return []int(p.Value.Shape().Clone()) }

// Size is the number of entries.
func (p *Param) Size() int { return p.Value.Shape().TotalSize() }

// Set copies data, row-major, into the parameter.
func (p *Param) Set(data []float64) error {
	return fill(p.Value, data, p.Name)
}

// Float64s returns a copy of the parameter's entries.
func (p *Param) Float64s() []float64 {
	v, _ := vecOf(p.Value)
	return v.Float64s()
}

// At returns entry i (row-major) as a float64.
func (p *Param) At(i int) float64 {
	if d := p.Data32(); d != nil {
		return float64(d[i])
	}
	return p.Data64()[i]
}

// SetAt sets entry i (row-major).
func (p *Param) SetAt(i int, v float64) {
	if d := p.Data32(); d != nil {
		d[i] = float32(v)
	} else {
		p.Data64()[i] = v
	}
}

// Uniform fills the parameter with draws from U(-a, a), in row-major order.
func (p *Param) Uniform(rng *rand.Rand, a float64) {
	p.Fill(func() float64 { return (2*rng.Float64() - 1) * a })
}

// Glorot fills a matrix [out, in] with Glorot/Xavier uniform draws,
// U(±√(6/(in+out))); a vector of size n is treated as [n, 1].
func (p *Param) Glorot(rng *rand.Rand) {
	s := p.Shape()
	in, out := 1, s[0]
	for _, d := range s[1:] {
		in *= d
	}
	p.Uniform(rng, math.Sqrt(6/float64(in+out)))
}

// Data32 is the parameter's own storage if it is float32, else nil.
func (p *Param) Data32() []float32 {
	if p.Value.Dtype() != Float32 {
		return nil
	}
	return p.Value.Float32s()
}

// Data64 is the parameter's own storage if it is float64, else nil.
func (p *Param) Data64() []float64 {
	if p.Value.Dtype() != Float64 {
		return nil
	}
	return p.Value.Float64s()
}

// Fill sets every entry, in row-major order, to a value of next.
func (p *Param) Fill(next func() float64) {
	fillWith(p.Value, func(int) float64 { return next() }, p.Name)
}
