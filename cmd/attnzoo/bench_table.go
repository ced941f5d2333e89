package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// paramTolerance is how far apart two parameter counts may be for the two
// models to count as the same: 0.05%.
const paramTolerance = 5e-4

// paramsDiffer reports whether PyTorch's count p is more than
// paramTolerance away from ours.
func paramsDiffer(ours int, p float64) bool {
	return math.Abs(p-float64(ours)) > paramTolerance*float64(ours)
}

// benchLine is one JSON line of either system, as far as the table needs.
type benchLine struct {
	System       string  `json:"system"`
	BLASCore     string  `json:"blas_core"` // PyTorch: the kernel its OpenBLAS runs (openblas_get_corename)
	Device       string  `json:"device"`    // where it ran: PyTorch "cpu" or the CUDA GPU's name, attnzoo's device (empty: cpu)
	Threads      float64 `json:"threads"`
	BLAS         string  `json:"blas"`
	BLASThreads  float64 `json:"blas_threads"`
	Hidden       int     `json:"hidden"`
	Batch        int     `json:"batch"`
	SrcLen       int     `json:"src_len"`
	Vocab        int     `json:"vocab"`
	Params       int     `json:"params"`
	StepsTimed   int     `json:"steps_timed"`
	DecodeReps   int     `json:"decode_reps"`
	MsStepMedian float64 `json:"ms_step_median"`
	MsStepMin    float64 `json:"ms_step_min"`
	DecodeSeqS   float64 `json:"decode_seq_s"`
}

// readBenchLines reads a file of JSON lines from bench/pytorch/reverse.py
// and `attnzoo bench --json` and pairs them by size, in the order the sizes
// first appear; a later line of the same system and size replaces an
// earlier one.
func readBenchLines(name string) (sizes []benchSizes, pairs map[benchSizes]*[2]*benchLine, err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	pairs = map[benchSizes]*[2]*benchLine{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var l benchLine
		if err := json.Unmarshal([]byte(text), &l); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: not a JSON line of bench/pytorch/reverse.py or attnzoo bench --json: %w", name, n, err)
		}
		side := 0
		switch {
		case strings.HasPrefix(l.System, "pytorch"):
		case l.System == "attnzoo":
			side = 1
		default:
			return nil, nil, fmt.Errorf("%s:%d: system %q: want pytorch-… or attnzoo", name, n, l.System)
		}
		s := benchSizes{hidden: l.Hidden, batch: l.Batch, srcLen: l.SrcLen, vocab: l.Vocab}
		if err := s.check(); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: sizes (hidden, batch, src_len, vocab): %v", name, n, err)
		}
		if pairs[s] == nil {
			pairs[s] = &[2]*benchLine{}
			sizes = append(sizes, s)
		}
		pairs[s][side] = &l
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(sizes) == 0 {
		return nil, nil, fmt.Errorf("%s: no JSON lines", name)
	}
	return sizes, pairs, nil
}

// printTableFrom prints `make bench-compare`'s table: one row per size,
// PyTorch beside attnzoo, ratio = attnzoo ÷ PyTorch.
func printTableFrom(w io.Writer, name string) error {
	sizes, pairs, err := readBenchLines(name)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	fmt.Fprintln(w, "| hidden | batch | src len | vocab | parameters | steps timed | PyTorch ms/step | attnzoo ms/step | ratio | fastest steps: PyTorch | attnzoo | ratio | PyTorch greedy seq/s | attnzoo greedy seq/s | ratio |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	var warnings []string
	var systems [2]*benchLine
	for _, s := range sizes {
		pt, az := pairs[s][0], pairs[s][1]
		params, steps := "—", "—"
		msP, msA, msR, sqP, sqA, sqR := "—", "—", "", "—", "—", ""
		minP, minA, minR := "—", "—", ""
		if pt != nil {
			systems[0] = pt
			msP, minP, sqP = fmt.Sprintf("%.1f", pt.MsStepMedian), fmt.Sprintf("%.1f", pt.MsStepMin), fmt.Sprintf("%.0f", pt.DecodeSeqS)
			params, steps = commas(pt.Params), fmt.Sprint(pt.StepsTimed)
		}
		if az != nil {
			systems[1] = az
			msA, minA, sqA = fmt.Sprintf("%.1f", az.MsStepMedian), fmt.Sprintf("%.1f", az.MsStepMin), fmt.Sprintf("%.0f", az.DecodeSeqS)
			params, steps = commas(az.Params), fmt.Sprint(az.StepsTimed)
		}
		if pt != nil && az != nil {
			if pt.MsStepMedian > 0 {
				msR = fmt.Sprintf("%.2f", az.MsStepMedian/pt.MsStepMedian)
			}
			if pt.MsStepMin > 0 {
				minR = fmt.Sprintf("%.2f", az.MsStepMin/pt.MsStepMin)
			}
			if pt.DecodeSeqS > 0 {
				sqR = fmt.Sprintf("%.2f", az.DecodeSeqS/pt.DecodeSeqS)
			}
			if pt.StepsTimed != az.StepsTimed {
				steps = fmt.Sprintf("%d / %d", pt.StepsTimed, az.StepsTimed)
			}
			if paramsDiffer(az.Params, float64(pt.Params)) {
				params = fmt.Sprintf("%s / %s", commas(pt.Params), commas(az.Params))
				warnings = append(warnings, fmt.Sprintf("hidden %d: PyTorch has %d parameters, attnzoo %d (more than %.2f%% apart): not the same model",
					s.hidden, pt.Params, az.Params, 100*paramTolerance))
			}
		}
		fmt.Fprintf(w, "| %d | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			s.hidden, s.batch, s.srcLen, s.vocab, params, steps, msP, msA, msR, minP, minA, minR, sqP, sqA, sqR)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "ms/step: median of the timed training steps; fastest steps: their minimum (less moved by other load on the machine);")
	fmt.Fprintln(w, "greedy: median of the timed decodings of one batch; ratio: attnzoo ÷ PyTorch.")
	if l := systems[0]; l != nil {
		fmt.Fprintf(w, "PyTorch: %s, %v torch thread(s), OpenBLAS kernel %s%s.\n", l.System, l.Threads, orDash(l.BLASCore), onDevice(l.Device))
	}
	if l := systems[1]; l != nil {
		fmt.Fprintf(w, "attnzoo: BLAS %s (%v thread(s)), GOMAXPROCS %v%s.\n", l.BLAS, l.BLASThreads, l.Threads, onDevice(l.Device))
	}
	for _, s := range warnings {
		fmt.Fprintln(w, "warning:", s)
	}
	return nil
}

// commas writes n with thousands separators: 16239721 → 16,239,721.
func commas(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// onDevice says where a bench line ran when it was not the cpu.
func onDevice(d string) string {
	if d == "" || d == "cpu" {
		return ""
	}
	return "; on " + d
}
