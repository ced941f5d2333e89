package experiments

import (
	"fmt"
	"math"
	"sync"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/optimizers"
	"github.com/attnzoo/attnzoo/scorers"
	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/source"
	"github.com/attnzoo/attnzoo/tasks"
)

// A memory estimate, made from the settings and the task's Size before
// anything is generated, read or built: what one run holds at its peak.
// Sizes are float64 throughout, so a typo's product cannot overflow.
//
// With b bytes a value (4 or 8), P parameters, B the batch, S the longest
// source (regions for captioning), T the longest target + 1, H hidden, E
// embed, A the concat scorer's size, V the target vocabulary, g the cell's
// gates (rnn 1, gru 3, lstm 4) and h the encoder's units a direction:
//
//	weights     = P·b·(2 + o) + P·(1 + o)·16     values, gradients, o optimizer slots; the checkpoint's buffers (float64 moments)
//	activations = 2·b·2·[S·B·(d·(3g+6)·h + E) + 3·B·S·H + K + T·B·((3g+8)·H + E + S·(3 + 2·A′)) + B·T·(3H + 3V)]
//	decoding    = b·[S·B·(d·(3g+6)·h + E + 3H) + K + (L·B + R)·((3g+8)·H + E + 2V + S·(3 + 2·A′)) + R·K/B + 2·R·S·H]
//	beam        = (L+1)·R·(b·S + 8) + 42·R + 64·beam + 8·(min(beam, V) + 1) + 8·V + 32·B + B·(L+1)·(8·S + 32) + 256·(L+1) + 64 KiB
//	data        = examples·(250 + 72·(mean source + mean target)) + images·(2·4·C·H·W + 4·H·W + 600) + features·4·S·D,
//	              or what the task says it holds (tasks.Size.DataBytes: tsv's token ids)
//
// With [model] layers = N > 1, every (3g+6)·h and (3g+8)·H term counts N
// times, and each layer above the first adds 4 values a unit per position
// (its input made time-major and dropped out; its slice of the decoding
// graphs' packed state); P counts its cells and, but for init "zero", its
// bridge W_init. With tie_embeddings P counts V·H once, in the embedding.
//
// where d is 1 or 2 directions, A′ = A for concat and 0 otherwise, K the
// scorer's key-side tensor (B·S·A for concat, B·S·H for general, else 0),
// R = B·beam the beam's rows and L the greedy decoder's steps (unrolled in
// one graph). The beam's step graph copies the annotations and the keys to
// each of its R rows (2·R·S·H). beam is what beam search holds on the Go
// heap besides that graph (seq2seq.BeamBytes, read off seq2seq.(*Model).Beam),
// for beam > 1: every step's attention weights [R·S] and its parents and
// tokens [R] int32 for up to L+1 steps, the rows' scores and flags, the 2·beam
// best candidates of a source (32 bytes each) and the top beam tokens of a
// hypothesis, each source's finished count and best hypothesis, and the
// returned tokens and alignments. The activations' leading 2 counts each node's value and its
// gradient, the next 2 the graphs kept at once (the trainer's, and the
// evaluator's for test perplexity); a cnn encoder adds its im2col buffer
// and feature maps per layer. A run's total is gcHeadroom = 2 times the
// sum (planned: the weights, the larger plan, and 2 times the data and the
// beam). A sweep is admitted when estimateMargin times its peak fits the
// memory limit. The measured peak RSS of the shipped experiments is in
// bench/README.md ("Memory: the estimate against the measured peak"), with
// the factor between the two.
type Estimate struct {
	Params      float64 `json:"params"`
	Weights     float64 `json:"weights_bytes"`     // parameters, gradients, optimizer state, checkpoint encoding
	Activations float64 `json:"activations_bytes"` // the training graphs at the largest batch shape
	Decoding    float64 `json:"decoding_bytes"`    // the greedy/beam decoding graphs
	Beam        float64 `json:"beam_bytes"`        // beam search's history and candidates on the Go heap (seq2seq.BeamBytes)
	Graphs      float64 `json:"graphs_bytes"`      // planned: what the graphs hold apart from the arena, their inputs above all (seq2seq.Footprint.Held)
	Data        float64 `json:"data_bytes"`        // the data set held in memory
	Total       float64 `json:"total_bytes"`

	// Largest is the largest single tensor, in values, and what it is.
	Largest     float64 `json:"largest_tensor_values"`
	LargestName string  `json:"largest_tensor"`

	// Planned: Activations and Decoding are the plans of the run's own
	// graphs (seq2seq.PlanFootprint), which share one arena, so the total
	// counts the larger of the two; otherwise the formulas' sum.
	Planned bool    `json:"planned"`
	Arena   float64 `json:"arena_bytes,omitempty"` // planned: the arena's values, working buffers and packed weights
}

// estimateInput is everything the estimate reads: the sizes of one run.
type estimateInput struct {
	Bytes                    float64 // a value: 4 or 8
	Cell, Encoder, Decoder   string
	Scorer, Init, Optimizer  string // Scorer canonical
	Beta                     bool
	Embed, Hidden, Attention float64
	Layers                   float64              // [model] layers (0 counts as 1)
	Tie                      bool                 // [model] tie_embeddings
	EncoderSettings          map[string][]float64 // the encoder's own (seq2seq.Config.EncoderSettings)
	Batch, Beam              float64
	DecodeLen                float64 // [decode] max_len; 0 = twice the longest source + 10
	Data                     tasks.Size
	DataKnown                bool

	// For the plans: the run's model (its vocabularies and lengths are the
	// task's, filled in from Data) and [train] bucket; nil Model: the
	// formulas alone.
	Model  *seq2seq.Config
	Bucket int
	// BatchTokens is [train] batch_tokens: training batches by token
	// count (Batch is then the evaluations' alone); 0: Batch sentences.
	BatchTokens int
}

// gates is a cell's gate count (cells.GatesOf); a cell that does not tell
// counts as the largest, an LSTM's 4.
func gates(cell string) float64 {
	if g, ok := cells.GatesOf(cell); ok {
		return float64(g)
	}
	return 4
}

// cellParams counts a cell's W (gates·h × in), U (gates·h × h) and b; a
// GRU has a second bias for its candidate's recurrent term.
func cellParams(g, in, h float64) float64 {
	p := g*h*in + g*h*h + g*h
	if g == 3 {
		p += h
	}
	return p
}

// estimate computes a run's memory estimate: from the memory plans of the
// run's own graphs (planned) where the task tells its vocabulary and
// lengths and the formulas say the model can be built on this machine,
// else from the formulas alone (formulaEstimate).
func estimate(in estimateInput) Estimate {
	if in.BatchTokens > 0 {
		// the formulas at the most pairs a batch can hold, each at the
		// longest lengths: far above any batch, but above all of them
		f := in
		f.Batch = max(in.Batch, float64(in.BatchTokens/max(1, in.Bucket)))
		est := formulaEstimate(f)
		if in.Model != nil && in.DataKnown && est.Weights <= planWeightsLimit && est.Total <= planTotalLimit {
			if p, ok := planned(in, est); ok {
				return p
			}
		}
		return est
	}
	est := formulaEstimate(in)
	if in.Model == nil || !in.DataKnown || est.Weights > planWeightsLimit || est.Total > planTotalLimit {
		return est
	}
	if p, ok := planned(in, est); ok {
		return p
	}
	return est
}

// planWeightsLimit and planTotalLimit bound the formulas' weights and
// total of a model the estimate builds to read its plans (building one
// allocates its parameters and its graphs' inputs): a model past them is
// estimated by the formulas, which overestimate (they count a buffer for
// every node of every graph) and refuse it anyway on any machine there is.
const (
	planWeightsLimit = 8 << 30
	planTotalLimit   = 1 << 40
)

// planned is the estimate from the run's graphs' plans
// (seq2seq.PlanFootprint) at the largest batch shape the task gives. The
// values of training and decoding share one arena, which holds the larger
// of the two; the weights are the parameters, the optimizer's state, the
// checkpoint's encoding, the packed weights and the ops' working buffers;
// the data and the process as in the formulas; the graphs' own inputs and
// nodes, held apart from the arena (the largest shape of each graph once);
// beam search's heap (seq2seq.BeamBytes). The arena is allocated once
// and lives for the run, so no collector's headroom is added to it.
func planned(in estimateInput, formula Estimate) (Estimate, bool) {
	d := in.Data
	cfg := *in.Model
	B := int(in.Batch)
	S, T := d.MaxSrc, d.MaxTgt+1
	if seq2seq.IsRegionEncoder(cfg.Encoder) {
		S = cfg.Regions
	} else {
		cfg.SrcVocab, cfg.MaxSrcLen = d.SrcVocab+4, d.MaxSrc
	}
	cfg.TgtVocab = d.TgtVocab + 4
	if q := in.Bucket; q > 0 {
		S, T = bucketLen(S, q, cfg.MaxSrcLen), bucketLen(T, q, 0)
	}
	L := int(in.DecodeLen)
	if L <= 0 {
		L = 2*max(d.MaxSrc, d.MaxTgt) + 10
		if seq2seq.IsRegionEncoder(cfg.Encoder) {
			L = 2*d.MaxTgt + 10
		}
	}
	if B <= 0 || S <= 0 || T <= 1 {
		return formula, false
	}
	f, err := footprint(cfg, B, S, T, L, max(int(in.Beam), 1))
	if err != nil {
		return formula, false
	}
	if in.BatchTokens > 0 {
		// B sizes the evaluations; the training batches are bounded by
		// tokenShapes' graphs (each planned whole: their decoding graphs'
		// own bytes are counted too, above what any run holds)
		var held int64
		for _, sh := range tokenShapes(in.BatchTokens, S, T, max(1, in.Bucket)) {
			g, err := footprint(cfg, sh.B, sh.S, sh.T, L, 1)
			if err != nil {
				return formula, false
			}
			f.Train, f.Work, f.Packed = max(f.Train, g.Train), max(f.Work, g.Work), max(f.Packed, g.Packed)
			f.Arena, held = max(f.Arena, g.Arena), max(held, g.Held)
		}
		f.Held += held
	}
	P, b, o := float64(f.Params), in.Bytes, float64(optimizers.MomentsOf(in.Optimizer))
	est := Estimate{Params: P, Planned: true, Largest: formula.Largest, LargestName: formula.LargestName, Data: formula.Data}
	est.Weights = P*b*(1+o) + P*(1+o)*16 + float64(f.Packed+f.Work)
	est.Activations = float64(f.Train)
	est.Decoding = float64(f.Decode)
	est.Arena = float64(f.Arena)
	est.Beam = formula.Beam
	est.Graphs = float64(f.Held)
	est.Total = est.Weights + max(est.Activations, est.Decoding) + est.Graphs + gcHeadroom*(est.Data+est.Beam)
	return est, true
}

// footprints memoises seq2seq.PlanFootprint: building a model and its
// graphs takes ~0.1 s at a paper's size, and a refusal's advice estimates
// each run again with one key at its default. The seed changes no size,
// so the runs of one sweep point (its seeds) share one entry.
var footprints = struct {
	sync.Mutex
	m map[string]seq2seq.Footprint
}{m: map[string]seq2seq.Footprint{}}

func footprint(cfg seq2seq.Config, B, S, T, L, beam int) (seq2seq.Footprint, error) {
	cfg.Seed = 0
	key := fmt.Sprintf("%+v %d %d %d %d %d", cfg, B, S, T, L, beam)
	footprints.Lock()
	defer footprints.Unlock()
	if f, ok := footprints.m[key]; ok {
		return f, nil
	}
	f, err := seq2seq.PlanFootprint(cfg, B, S, T, L, beam)
	if err != nil {
		return f, err
	}
	if len(footprints.m) >= 256 {
		clear(footprints.m)
	}
	footprints.m[key] = f
	return f, nil
}

// formulaEstimate computes a run's memory estimate from the formulas above.
func formulaEstimate(in estimateInput) Estimate {
	b := in.Bytes
	g := gates(in.Cell)
	H, E, A := in.Hidden, in.Embed, in.Attention
	B := in.Batch
	d := in.Data
	Vt := float64(d.TgtVocab) + 4
	T := float64(d.MaxTgt) + 1
	var est Estimate
	P, encAct, S := est.encoderCost(in)

	// The decoder, the scorer and the output layers: a stacked layer's
	// cell reads H values, and has a bridge W_init, b_init of its own;
	// tied, the output projection is the target embedding.
	Ld := max(in.Layers, 1)
	P += Vt*E + cellParams(g, E+H, H) + (Ld-1)*cellParams(g, H, H)
	est.note("the training graph's logits ([train] batch × target length × the target vocabulary)", B*T*Vt)
	P += 2*H*H + H + Vt
	if !in.Tie {
		P += Vt * H
	}
	if in.Init != "zero" {
		P += Ld * (H*H + H)
	}
	if in.Beta {
		P += H + 1
	}
	sp, keySide, perPos := est.scorerCost(in, S)
	P += sp
	est.note("the decoder's recurrent weights ([model] hidden²)", g*H*(E+2*H))
	est.note("the output layer ([model] hidden × the target vocabulary)", Vt*H)
	// a stacked layer: its gates and states, the dropout before it, and
	// its slice of the decoding graphs' packed state (4 values a unit)
	decStep := B * (Ld*(3*g+8)*H + E + S*perPos + (Ld-1)*4*H)
	act := encAct + keySide + T*decStep + B*T*(3*H+3*Vt)
	est.Params = P
	o := float64(optimizers.MomentsOf(in.Optimizer))
	// values, gradients, optimizer slots, the checkpoint's encoding, and up
	// to five packed copies: each graph packs the weights its products read
	// once per run (gx's runState), the training graph in both orientations
	// (X·Wᵀ and G·W), the encoder's, greedy decoding's and the beam's in one
	est.Weights = P*b*(7+o) + P*(1+o)*16
	// and the float32 packing buffers of the products whose B is not a
	// weight (a gradient's Gᵀ·X: kc = 512 rows of op(B) at a time, n up to
	// the widest layer's) and of A (192 × 512), kept from product to product
	if b == 4 {
		est.Weights += 4 * (512*max(g*H, 2*H+E, Vt, A) + 192*512)
	}
	est.Activations = 2 * b * 2 * act

	// Decoding: the encoder forward (no gradients), greedy decoding's L
	// steps unrolled in one graph, and beam search's one step for R rows.
	L := in.DecodeLen
	if L <= 0 {
		L = 2*float64(max(d.MaxSrc, d.MaxTgt)) + 10
		if d.MaxSrc == 0 { // captioning: twice the longest training caption
			L = 2*float64(d.MaxTgt) + 10
		}
	}
	R := B * max(in.Beam, 1)
	step := Ld*(3*g+8)*H + E + 2*Vt + S*perPos + (Ld-1)*4*H
	est.Decoding = b * (encAct + keySide + L*B*step + R*step + R/B*keySide + 2*R*S*H)
	if in.Beam > 1 {
		est.Beam = seq2seq.BeamBytes(B, in.Beam, S, Vt, L, b)
	}
	est.note("the greedy decoding graph's logits ([train] batch × [decode] max_len × the target vocabulary)", L*B*Vt)
	est.note("the beam's logits ([train] batch × [decode] beam × the target vocabulary)", R*Vt)
	est.note("the beam's copy of the annotations ([train] batch × [decode] beam × source length × [model] hidden)", R*S*H)
	if in.DataKnown {
		est.Data = est.dataCost(d)
	}
	est.Total = gcHeadroom * (est.Weights + est.Activations + est.Decoding + est.Data + est.Beam)
	return est
}

// note records values as the largest tensor when it is larger than the
// largest so far (the first of equals stays).
func (est *Estimate) note(name string, values float64) {
	if values > est.Largest {
		est.Largest, est.LargestName = values, name
	}
}

// encoderCost is the encoder's part: its parameters (seq2seq.EncoderInfo.Cost,
// and without a final state the decoder's initial memory from the mean
// annotation, an LSTM's), its activations per training graph and the
// number of source positions S.
func (est *Estimate) encoderCost(in estimateInput) (P, encAct, S float64) {
	g, H, B, d := gates(in.Cell), in.Hidden, in.Batch, in.Data
	info, _ := seq2seq.EncoderInfoOf(in.Encoder)
	if info.Cost != nil {
		enc := seq2seq.Config{Encoder: in.Encoder, EncoderSettings: in.EncoderSettings}
		c := info.Cost(enc, seq2seq.CostSizes{Batch: B, Embed: in.Embed, Hidden: H, Layers: in.Layers, Gates: g, MaxSrc: float64(d.MaxSrc), SrcVocab: float64(d.SrcVocab) + 4,
			Shape: d.Shape, CellParams: func(in, h float64) float64 { return cellParams(g, in, h) }})
		P, encAct, S = c.Params, c.Activations, c.S
		if c.LargestName != "" {
			est.note(c.LargestName, c.Largest)
		}
	} else if S = float64(d.MaxSrc); info.Reads != source.Tokens {
		S = float64(d.S)
	}
	if !info.Final && in.Init != "zero" && g == 4 {
		P += H*H + H
	}
	encAct += 3 * B * S * H // annotations: the stack, the concatenation, the pool
	est.note("the annotations ([train] batch × source length × [model] hidden)", B*S*H)
	return P, encAct, S
}

// scorerCost is the scorer's parameters (scorers.Coster), its key-side tensor and what it
// holds per source position and decoder step, for S source positions.
func (est *Estimate) scorerCost(in estimateInput, S float64) (P, keySide, perPos float64) {
	H, A, B := in.Hidden, in.Attention, in.Batch
	perPos = 3
	c, ok := scorers.CostOf(in.Scorer, scorers.CostSizes{Batch: B, Hidden: H, Attention: A, S: S})
	if !ok { // a scorer that does not tell (scorers.Coster): count it as concat
		return 2*A*H + 2*A, B * S * A, perPos + 2*A
	}
	for _, t := range c.Tensors {
		est.note(t.Name, t.Values)
	}
	return c.Params, c.KeySide, perPos + c.PerPos
}

// dataCost is what the data set holds.
func (est *Estimate) dataCost(d tasks.Size) float64 {
	n := d.Examples()
	switch {
	case d.C > 0: // images: the normalised copy, the encoder's copy, the RGBA original
		est.note("the data set's images ([task] train × image size²)", n*float64(d.C)*float64(d.H)*float64(d.W))
		return n*(2*4*float64(d.C)*float64(d.H)*float64(d.W)+4*float64(d.H)*float64(d.W)+600) +
			float64(d.Train)*float64(max(d.Captions, 1))*(250+72*d.MeanTgt)
	case d.S > 0:
		return n * 4 * float64(d.S) * float64(d.D) * 2
	case d.DataBytes > 0: // the task knows what it holds (tsv: token ids)
		return float64(d.DataBytes)
	}
	est.note("the data set's token lists ([task] split sizes × sequence length)", n*(d.MeanSrc+d.MeanTgt))
	return n * (250 + 72*(d.MeanSrc+d.MeanTgt))
}

// gcHeadroom: Go's collector (GOGC=100) lets the heap grow to twice the
// live data before it collects, so a run's peak is up to twice what it
// holds.
const gcHeadroom = 2

// processBase is what the process holds besides its runs: the Go runtime,
// the binary, BLAS buffers (measured: `attnzoo list` peaks at ~25 MB).
const processBase = 40 << 20

// maxTensorBytes bounds one tensor: 2^47 bytes (128 TiB) is the whole user
// address space of x86-64 and arm64 with 4-level page tables, so no machine
// could hold more, whatever --max-memory says.
const maxTensorBytes = 1 << 47

// humanBytes writes n bytes as "180 MB", "2.4 GB", "7.3e+21 bytes".
func humanBytes(n float64) string {
	switch {
	case n >= 1e18:
		return fmt.Sprintf("%.2g bytes", n)
	case n >= 1e15:
		return fmt.Sprintf("%.1f PB", n/1e15)
	case n >= 1e12:
		return fmt.Sprintf("%.1f TB", n/1e12)
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", n/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.0f MB", n/1e6)
	}
	return fmt.Sprintf("%.0f KB", math.Ceil(n/1e3))
}

// canonicalScorer is the scorer's registry name ("" if unknown).
func canonicalScorer(name string) string {
	c, _ := scorers.Canonical(name)
	return c
}
