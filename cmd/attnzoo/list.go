package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/experiments"
	"github.com/attnzoo/attnzoo/initializers"
	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/optimizers"
	"github.com/attnzoo/attnzoo/scorers"
	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/tasks"
)

// listing is what `attnzoo list --json` prints.
type listing struct {
	Scorers     []scorerInfo `json:"scorers"`
	Normalizers []string     `json:"normalizers"`
	Cells       []string     `json:"cells"`
	Encoders    []string     `json:"encoders"`
	// EncoderSettings are each encoder's own settings ([model] keys), by
	// encoder; an encoder without any is left out.
	EncoderSettings map[string][]encoderSetting `json:"encoder_settings"`
	Decoders        []string                    `json:"decoders"`
	// ModelKeys are the [model] keys that shape every model the registries
	// build (layers, tie_embeddings), with where they apply.
	ModelKeys    []modelKey `json:"model_keys"`
	Tasks        []string   `json:"tasks"`
	Inits        []string   `json:"inits"`
	Initializers []string   `json:"initializers"` // [model] init_embed, init_weights
	Optimizers   []string   `json:"optimizers"`
	// Schedules are the learning rate's schedules ([train] schedule): each
	// its [train] keys and its formula.
	Schedules []optimizers.ScheduleInfo `json:"schedules"`
	// Batching are the [train] keys that size training batches.
	Batching []string `json:"batching"`
	// Loss are the [train] keys that shape the training loss.
	Loss []string `json:"loss"`
	// TaskKeys are each task's [task] keys (its name aside).
	TaskKeys map[string][]string `json:"task_keys"`
	Corpora  []string            `json:"corpora"` // the kinds of task runs train on
	Devices  []string            `json:"devices"`
}

type scorerInfo struct {
	Name     string        `json:"name"`
	Aliases  []string      `json:"aliases"`
	Formula  string        `json:"formula"`
	Settings []settingInfo `json:"settings"` // its own: [model] keys and score flags
	// PositionBased: its scores follow key positions, not contents
	// (scorers.PositionBased), so permuting the keys does not permute them.
	PositionBased bool `json:"position_based"`
}

type settingInfo struct {
	Name    string  `json:"name"`
	Default float64 `json:"default"`
	Usage   string  `json:"usage"`
}

// modelKey is a [model] key of the model's shape.
type modelKey struct {
	Name     string   `json:"name"`
	Default  string   `json:"default"`
	Encoders []string `json:"encoders,omitempty"` // the encoders it applies to (none: every one)
	Usage    string   `json:"usage"`
}

// describe writes the key as `attnzoo list` shows it.
func (k modelKey) describe() string {
	s := fmt.Sprintf("%s = %s: %s", k.Name, k.Default, k.Usage)
	if k.Encoders != nil {
		s += " (encoders " + strings.Join(k.Encoders, ", ") + ")"
	}
	return s
}

// encoderSetting is one of an encoder's settings (seq2seq.Setting).
type encoderSetting struct {
	Name    string    `json:"name"`
	List    bool      `json:"list"`              // a list of numbers
	Default []float64 `json:"default,omitempty"` // none: a list left empty
	Usage   string    `json:"usage"`
}

// describe writes a setting as `attnzoo list` shows it: "patch = 8",
// "conv = [32 64 64]", or the name alone when it has no default.
func (s encoderSetting) describe() string {
	switch {
	case s.Default == nil:
		return s.Name
	case s.List:
		return fmt.Sprintf("%s = %g", s.Name, s.Default)
	}
	return fmt.Sprintf("%s = %g", s.Name, s.Default[0])
}

func buildListing() listing {
	l := listing{
		Normalizers:  scorers.NormalizerNames(),
		Cells:        cells.Names(),
		Encoders:     seq2seq.EncoderNames(),
		Decoders:     seq2seq.DecoderNames(),
		Tasks:        tasks.Names(),
		Inits:        seq2seq.InitNames(),
		Initializers: initializers.Forms(),
		Optimizers:   optimizers.Names(),
		Schedules:    optimizers.Schedules(),
		Batching:     experiments.Batching(),
		Loss: []string{"label_smoothing = 0 (ε: the target's probability 1 − ε + ε/V, every other word's ε/V, as PyTorch's cross_entropy(label_smoothing=ε))",
			"lambda = 0 (the doubly stochastic attention penalty, Xu et al. 2015)"},
		TaskKeys: map[string][]string{},
		Corpora:  experiments.Corpora(),
		Devices:  backend.Choices(),
	}
	l.ModelKeys = []modelKey{
		{Name: "layers", Default: "1", Encoders: seq2seq.StackingEncoders(),
			Usage: "stacked recurrent layers in the encoder and the decoder, dropout between them, attention on the top layer"},
		{Name: "tie_embeddings", Default: "false",
			Usage: "the output projection's weight is the target embedding, one parameter (needs embed = hidden)"},
	}
	for _, n := range l.Tasks {
		if keys, err := tasks.Keys(n); err == nil {
			l.TaskKeys[n] = keys
		}
	}
	l.EncoderSettings = map[string][]encoderSetting{}
	for _, n := range l.Encoders {
		for _, s := range seq2seq.EncoderSettingsOf(n) {
			l.EncoderSettings[n] = append(l.EncoderSettings[n], encoderSetting{s.Name, s.List, s.Default, s.Usage})
		}
	}
	aliases := map[string][]string{}
	for a, n := range scorers.Aliases() {
		aliases[n] = append(aliases[n], a)
	}
	for _, n := range scorers.Names() {
		info := scorerInfo{Name: n, Aliases: aliases[n], Settings: []settingInfo{}}
		for _, st := range scorers.SettingsOf(n) {
			info.Settings = append(info.Settings, settingInfo{st.Name, st.Default, st.Usage})
		}
		sort.Strings(info.Aliases)
		if info.Aliases == nil {
			info.Aliases = []string{}
		}
		if s, err := scorers.New(n, scorers.Config{Query: 4, Key: 4, MaxLen: 4}); err == nil {
			if f, ok := s.(scorers.Formulaer); ok {
				info.Formula = f.Formula()
			}
			if p, ok := s.(scorers.PositionBased); ok {
				info.PositionBased = p.PositionBased()
			}
		}
		l.Scorers = append(l.Scorers, info)
	}
	return l
}

func cmdList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("attnzoo list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	if help, err := parseNoArgs(fs, "list", args); help || err != nil {
		return err
	}
	l := buildListing()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(l)
	}
	fmt.Fprintln(stdout, "scorers:")
	for _, s := range l.Scorers {
		al := ""
		if len(s.Aliases) > 0 {
			al = " (also: " + strings.Join(s.Aliases, ", ") + ")"
		}
		var own []string
		for _, st := range s.Settings {
			own = append(own, fmt.Sprintf("%s = %g", st.Name, st.Default))
		}
		if len(own) > 0 {
			al += " [settings: " + strings.Join(own, ", ") + "]"
		}
		fmt.Fprintf(stdout, "  %-11s %s%s\n", s.Name, s.Formula, al)
	}
	encoders := make([]string, len(l.Encoders))
	for i, n := range l.Encoders {
		encoders[i] = n
		var own []string
		for _, s := range l.EncoderSettings[n] {
			own = append(own, s.describe())
		}
		if len(own) > 0 {
			encoders[i] += " [settings: " + strings.Join(own, ", ") + "]"
		}
	}
	fmt.Fprintln(stdout, "model keys:")
	for _, k := range l.ModelKeys {
		fmt.Fprintf(stdout, "  %s\n", k.describe())
	}
	for _, sec := range []struct {
		name  string
		items []string
	}{
		{"normalizers", l.Normalizers}, {"cells", l.Cells}, {"encoders", encoders},
		{"decoders", l.Decoders}, {"tasks", l.Tasks}, {"inits", l.Inits},
		{"initializers", l.Initializers}, {"optimizers", l.Optimizers},
		{"corpora", l.Corpora}, {"devices", l.Devices}, {"batching ([train])", l.Batching},
		{"loss ([train])", l.Loss},
	} {
		items := strings.Join(sec.items, ", ")
		if items == "" {
			items = "(none yet)"
		}
		fmt.Fprintf(stdout, "%s: %s\n", sec.name, items)
	}
	fmt.Fprintln(stdout, "task keys ([task]):")
	for _, n := range l.Tasks {
		fmt.Fprintf(stdout, "  %-8s %s\n", n, strings.Join(l.TaskKeys[n], ", "))
	}
	fmt.Fprintln(stdout, "schedules ([train] schedule; n: the update, from 1; each rate floored at min_lr):")
	for _, s := range l.Schedules {
		keys := ""
		if len(s.Keys) > 0 {
			keys = " [keys: " + strings.Join(s.Keys, ", ") + "]"
		}
		fmt.Fprintf(stdout, "  %-12s %s%s\n", s.Name, s.Formula, keys)
	}
	return nil
}
