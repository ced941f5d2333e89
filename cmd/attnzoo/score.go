package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/BurntSushi/toml"

	"github.com/attnzoo/attnzoo/scorers"
)

// cmdScore implements
//
//	attnzoo score --scorer NAME --query CSV --keys ROWS [--values ROWS]
//	              [--params FILE.toml] [--mask CSV] [--normalizer NAME]
//	              [--SETTING VALUE ...] [--json]
//
// where each scorer's own settings (scorers.AllSettings) are flags:
// --attention, --max-len, --sharpness, ...
//
// computed in float64. Mistakes in the flags (an unknown scorer, a malformed
// number, sizes that do not fit) are usage errors (exit 2); a params file
// that cannot be read or does not fit the scorer is a runtime error (exit 1).
func cmdScore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("attnzoo score", stderr,
		"usage: attnzoo score --scorer NAME --query CSV --keys ROWS [--values ROWS] [--params FILE.toml] [--mask CSV] [--normalizer NAME] [--json]")
	name := fs.String("scorer", "", "scorer name (see attnzoo list)")
	query := fs.String("query", "", "the query, comma-separated: 1,2,3")
	keys := fs.String("keys", "", "the keys, rows split by ';': 1,2,3;4,5,6")
	values := fs.String("values", "", "the values, rows split by ';' (default: the keys)")
	params := fs.String("params", "", "TOML file with the scorer's parameters (W, W_q, W_k, v, b, sharpness)")
	mask := fs.String("mask", "", "1 for a present key, 0 for a masked one: 1,1,0 (default: all present)")
	norm := fs.String("normalizer", "softmax", strings.Join(scorers.NormalizerNames(), " | "))
	settings := scorers.Values{} // each scorer's own settings, as flags: max_len → --max-len
	for _, st := range scorers.AllSettings() {
		fs.Var(settingFlag{st, settings}, strings.ReplaceAll(st.Name, "_", "-"), st.Usage+" (default: from the params file, else "+fmt.Sprint(st.Default)+")")
	}
	asJSON := fs.Bool("json", false, "print one JSON object")
	if help, err := parseNoArgs(fs, "score", args); help || err != nil {
		return err
	}
	if *name == "" {
		return usagef("score: --scorer is required (have: %s)", strings.Join(scorers.Names(), ", "))
	}
	if _, ok := scorers.Canonical(*name); !ok {
		return usageError{fmt.Errorf("score: %w", &scorers.UnknownError{Name: *name})}
	}
	if _, err := scorers.NewNormalizer(*norm); err != nil {
		return usagef("score: --normalizer: %v", err)
	}
	if *query == "" || *keys == "" {
		return usagef("score: --query and --keys are required")
	}
	q, err := parseCSV(*query)
	if err != nil {
		return usagef("score: --query: %v", err)
	}
	K, err := parseRows(*keys)
	if err != nil {
		return usagef("score: --keys: %v", err)
	}
	var V [][]float64
	if *values != "" {
		if V, err = parseRows(*values); err != nil {
			return usagef("score: --values: %v", err)
		}
		if len(V) != len(K) {
			return usagef("score: --values has %d rows, --keys has %d", len(V), len(K))
		}
	}
	var m []float64
	if *mask != "" {
		if m, err = parseCSV(*mask); err != nil {
			return usagef("score: --mask: %v", err)
		}
		if len(m) != len(K) {
			return usagef("score: --mask has %d entries, --keys has %d rows", len(m), len(K))
		}
		for i, x := range m {
			if x != 0 && x != 1 {
				return usagef("score: --mask: entry %d is %g, want 0 or 1", i+1, x)
			}
		}
	}
	var pv map[string]any
	if *params != "" {
		data, err := os.ReadFile(*params)
		if err != nil {
			return fmt.Errorf("score: %w", err)
		}
		if _, err := toml.Decode(string(data), &pv); err != nil {
			return fmt.Errorf("score: %s: %w", *params, err)
		}
	}
	s, err := scorers.Build(scorers.Spec{
		Name: *name, Query: len(q), Key: len(K[0]), Keys: len(K),
		Params: pv, Settings: settings,
	})
	if err != nil {
		if *params != "" && pv != nil {
			return fmt.Errorf("score: %s: %w%s", *params, err, lineHint(*params, err))
		}
		return usagef("score: %v", err)
	}
	r, err := scorers.Evaluate(s, *norm, q, K, V, m)
	if err != nil {
		return usagef("score: %v", err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		return enc.Encode(r)
	}
	return printScore(stdout, s, *norm, r)
}

// lineHint returns " (line N)" for the first line of file that sets the key
// an error message names, if any.
func lineHint(file string, err error) string {
	msg := err.Error()
	i := strings.Index(msg, `key "`)
	if i < 0 {
		return ""
	}
	key := msg[i+5:]
	key = key[:strings.IndexByte(key, '"')]
	data, rerr := os.ReadFile(file)
	if rerr != nil {
		return ""
	}
	for n, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, key) && strings.HasPrefix(strings.TrimSpace(t[len(key):]), "=") {
			return fmt.Sprintf(" (line %d)", n+1)
		}
	}
	return ""
}

func printScore(w io.Writer, s scorers.Scorer, norm string, r *scorers.Result) error {
	formula := ""
	if f, ok := s.(scorers.Formulaer); ok {
		formula = "  " + f.Formula()
	}
	fmt.Fprintf(w, "scorer %s%s, normalizer %s\n\n", s.Name(), formula, norm)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "key\tscore\tweight\t")
	for i := range r.Scores {
		fmt.Fprintf(tw, "%d\t%.6g\t%.6g\t\n", i+1, r.Scores[i], r.Weights[i])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	ctx := make([]string, len(r.Context))
	for i, c := range r.Context {
		ctx[i] = strconv.FormatFloat(c, 'g', 6, 64)
	}
	_, err := fmt.Fprintf(w, "\ncontext [%s]\n", strings.Join(ctx, ", "))
	return err
}

// settingFlag is a flag for a scorer's own setting: it records the value
// given in the map, so a setting not given keeps its default.
type settingFlag struct {
	st   scorers.Setting
	into scorers.Values
}

func (f settingFlag) String() string {
	if v, ok := f.into[f.st.Name]; ok {
		return fmt.Sprint(v)
	}
	return ""
}

func (f settingFlag) Set(s string) error {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return fmt.Errorf("%q is not a number", s)
	}
	if err := f.st.Check(x); err != nil {
		return err
	}
	f.into[f.st.Name] = x
	return nil
}

// parseCSV parses "1,2,3" into numbers; the error names the bad entry.
func parseCSV(s string) ([]float64, error) {
	parts := strings.Split(s, ",")
	out := make([]float64, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("entry %d of %q is empty", i+1, s)
		}
		x, err := strconv.ParseFloat(p, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("entry %d %q of %q is not a finite number", i+1, p, s)
		}
		out[i] = x
	}
	return out, nil
}

// parseRows parses "1,2;3,4" into rows of equal length; the error names the
// bad row.
func parseRows(s string) ([][]float64, error) {
	parts := strings.Split(strings.TrimSuffix(strings.TrimSpace(s), ";"), ";")
	rows := make([][]float64, len(parts))
	for i, p := range parts {
		r, err := parseCSV(p)
		if err != nil {
			return nil, fmt.Errorf("row %d (%q): %v", i+1, strings.TrimSpace(p), err)
		}
		if i > 0 && len(r) != len(rows[0]) {
			return nil, fmt.Errorf("row %d (%q) has %d entries, row 1 has %d", i+1, strings.TrimSpace(p), len(r), len(rows[0]))
		}
		rows[i] = r
	}
	return rows, nil
}
