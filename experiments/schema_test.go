package experiments

import (
	"fmt"
	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/scorers"
	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/source"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodHead = `name = "t"
seeds = [1, 2]
[task]
name = "reverse"
train = 100
dev = 10
test = 10
`

// TestBadExperiments: each mistake is rejected before anything trains, and
// the message names the file, the key and the problem (and the line where
// the key is written).
// badFile is an experiment file Load must refuse, with the pieces its
// error must name.
type badFile struct {
	name, text string
	want       []string
}

// checkBadFiles writes each case to bad.toml and checks Load's error.
func checkBadFiles(t *testing.T, cases []badFile) {
	t.Helper()
	dir := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "bad.toml")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.text)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestBadExperiments(t *testing.T) {
	cases := []badFile{
		{"unknown top key", "epochs = 3\n" + goodHead, []string{"bad.toml:1", "epochs", "unknown key", "have: decode"}},
		{"unknown model key", goodHead + "[model]\nhiden = 64\n", []string{"[model] hiden", "unknown key", "hidden"}},
		{"unknown scorer", goodHead + "[model]\nscorer = \"dto\"\n", []string{"bad.toml:9", "[model] scorer", `"dto"`, strings.Join(scorers.Names(), ", ")}},
		{"unknown cell", goodHead + "[model]\ncell = \"gruu\"\n", []string{"[model] cell", `"gruu"`, strings.Join(cells.Names(), ", ")}},
		{"unknown encoder", goodHead + "[model]\nencoder = \"cnn\"\n", []string{"[model] encoder", strings.Join(seq2seq.EncodersReading(source.Tokens), ", ")}},
		{"unknown decoder", goodHead + "[model]\ndecoder = \"transformer\"\n", []string{"[model] decoder", strings.Join(seq2seq.DecoderNames(), ", ")}},
		{"unknown optimizer", goodHead + "[train]\noptimizer = \"adamw\"\n", []string{"[train] optimizer", "adam, rmsprop, sgd"}},
		{"unknown normalizer", goodHead + "[model]\nnormalizer = \"entmax\"\n", []string{"bad.toml:9", "[model] normalizer", `"entmax"`, "softmax, sparsemax"}},
		{"unknown init", goodHead + "[model]\ninit = \"last\"\n", []string{"bad.toml:9", "[model] init", `"last"`, "final, mean, zero"}},
		{"unknown task", "name = \"t\"\n[task]\nname = \"revrse\"\n", []string{"[task] name", `"revrse"`, "reverse"}},
		{"unknown task key", goodHead + "max_lne = 4\n", []string{"bad.toml:8", "[task] max_lne", "unknown key", "max_len"}},
		{"wrong type", goodHead + "[model]\nhidden = \"big\"\n", []string{"bad.toml:9", "hidden", "string"}},
		{"negative size", goodHead + "[model]\nhidden = -4\n", []string{"[model] hidden", "> 0", "-4"}},
		{"odd birnn hidden", goodHead + "[model]\nhidden = 33\n", []string{"[model] hidden", "even", "33"}},
		{"zero steps", goodHead + "[train]\nsteps = 0\n", []string{"[train] steps", "> 0"}},
		{"negative bucket", goodHead + "[train]\nbucket = -8\n", []string{"[train] bucket", "≥ 0", "-8"}},
		{"bad lr", goodHead + "[train]\nlr = -0.1\n", []string{"[train] lr", "> 0"}},
		{"dropout 1", goodHead + "[model]\ndropout = 1.0\n", []string{"[model] dropout", "[0, 1)"}},
		{"label_smoothing 1", goodHead + "[train]\nlabel_smoothing = 1.0\n", []string{"bad.toml:9", "[train] label_smoothing", "[0, 1)", "got 1"}},
		{"label_smoothing negative", goodHead + "[train]\nlabel_smoothing = -0.1\n", []string{"[train] label_smoothing", "[0, 1)"}},
		{"path in name", strings.Replace(goodHead, `name = "t"`, `name = "../escape"`, 1), []string{"name", "plain folder name"}},
		{"slash in name", strings.Replace(goodHead, `name = "t"`, `name = "a/b"`, 1), []string{"name", "plain folder name"}},
		{"missing name", strings.Replace(goodHead, `name = "t"`+"\n", "", 1), []string{"name", "missing"}},
		{"cuda", goodHead[:len(`name = "t"`)+1] + "device = \"cuda\"\n" + goodHead[len(`name = "t"`)+1:], []string{"device", "cuda", "cpu"}},
		{"tpu", goodHead[:len(`name = "t"`)+1] + "device = \"tpu\"\n" + goodHead[len(`name = "t"`)+1:], []string{"device", `unknown "tpu"`, "(have: ", " cpu,", " gpu,", " gpu:N,", " opencl:P:D"}}, // the registry's forms; this binary registers test backends too
		{"opencl", goodHead[:len(`name = "t"`)+1] + "device = \"opencl:0\"\n" + goodHead[len(`name = "t"`)+1:], []string{"device", "want opencl:P:D"}},
		{"bad dtype", goodHead[:len(`name = "t"`)+1] + "dtype = \"float16\"\n" + goodHead[len(`name = "t"`)+1:], []string{"dtype", "float16", "float32, float64"}},
		{"duplicate seed", strings.Replace(goodHead, "[1, 2]", "[1, 1]", 1), []string{"seeds", "twice"}},
		{"sweep not a list", goodHead + "[sweep]\nscorer = \"dot\"\n", []string{"[sweep] scorer", "list"}},
		{"sweep unknown scorer", goodHead + "[sweep]\nscorer = [\"dot\", \"dto\"]\n", []string{"[model] scorer", `"dto"`, "sweep point scorer=dto"}},
		{"sweep unknown key", goodHead + "[sweep]\n\"model.hiden\" = [32]\n", []string{`"model.hiden"`, "unknown key"}},
		{"sweep wrong type", goodHead + "[sweep]\n\"model.hidden\" = [\"a\"]\n", []string{`"model.hidden"`, "integer"}},
		{"sweep bad size", goodHead + "[sweep]\n\"model.hidden\" = [32, 0]\n", []string{"[model] hidden", "> 0", "hidden=0"}},
		{"sweep task name", goodHead + "[sweep]\n\"task.name\" = [\"copy\"]\n", []string{"task itself cannot be swept"}},
		{"bad plot format", goodHead + "[plots]\nformats = [\"gif\"]\n", []string{"[plots] formats", "gif", "png, svg, pdf"}},
		{"syntax error", goodHead + "[model\n", []string{"bad.toml:", "table name"}},
		{"task impossible", goodHead + "min_len = 9\nmax_len = 3\n", []string{"[task]", "min_len"}},
		{"sweep unquoted dotted key", goodHead + "[sweep]\nmodel.hidden = [16, 32]\n", []string{"[sweep] model", "in quotes"}},
		{"sweep not a table", "sweep = 3\n" + goodHead, []string{"sweep", "must be a table"}},
		{"nan alpha", goodHead + "[decode]\nalpha = nan\n", []string{"[decode] alpha", "≥ 0"}},
		{"nan clip", goodHead + "[train]\nclip = nan\n", []string{"[train] clip", "≥ 0"}},
		{"sweep bad task value", goodHead + "[sweep]\n\"task.max_len\" = [0]\n", []string{`[sweep] "task.max_len"`, "max_len"}},
		{"decay without every", goodHead + "[train]\nlr_decay = 0.5\n", []string{"[train] lr_decay_every", "> 0"}},
		{"unknown bleu tokenizer", goodHead + "[decode]\nbleu_tokenize = \"zh\"\n", []string{"bad.toml:9", "[decode] bleu_tokenize", `unknown "zh"`, "13a, char, intl, none"}},
		{"sweep bleu tokenizer", goodHead + "[sweep]\n\"decode.bleu_tokenize\" = [\"13a\", \"14a\"]\n", []string{"[decode] bleu_tokenize", `"14a"`, "bleu_tokenize=14a"}},
	}
	checkBadFiles(t, cases)
	if len(cases) < 15 {
		t.Fatalf("only %d cases", len(cases))
	}
}

func TestSweepExpansion(t *testing.T) {
	e, err := Parse([]byte(goodHead+"[sweep]\nscorer = [\"dot\", \"luong\"]\n\"model.hidden\" = [16, 32]\n\"task.max_len\" = [5]\n"), "x.toml")
	runs := runsOf(t, e, err)
	// 2 scorers × 2 hidden × 1 max_len × 2 seeds, first axis slowest, seeds fastest
	if len(runs) != 8 {
		t.Fatalf("%d runs, want 8", len(runs))
	}
	want := []string{
		"scorer=dot_hidden=16_max_len=5_seed=1", "scorer=dot_hidden=16_max_len=5_seed=2",
		"scorer=dot_hidden=32_max_len=5_seed=1", "scorer=dot_hidden=32_max_len=5_seed=2",
		"scorer=luong_hidden=16_max_len=5_seed=1",
	}
	for i, w := range want {
		if runs[i].ID != w {
			t.Errorf("run %d is %s, want %s", i, runs[i].ID, w)
		}
	}
	if runs[2].Model.Hidden != 32 || runs[4].Model.Scorer != "luong" || runs[0].Task["max_len"] != int64(5) {
		t.Errorf("settings not applied: %+v %+v %v", runs[2].Model, runs[4].Model, runs[0].Task)
	}
}

func TestSweepBool(t *testing.T) {
	e, err := Parse([]byte(goodHead+"[sweep]\n\"model.beta\" = [true, false]\n"), "x.toml")
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := e.Runs()
	if len(runs) != 4 || !runs[0].Model.Beta || runs[2].Model.Beta {
		t.Errorf("beta not swept: %d runs", len(runs))
	}
}

func TestShippedExperimentsValid(t *testing.T) {
	files, _ := filepath.Glob("*.toml")
	if len(files) == 0 {
		t.Fatal("no shipped experiments")
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%v", err)
		}
	}
}

const shapesHead = `name = "s"
[task]
name = "shapes"
size = 32
train = 10
dev = 2
test = 2
[model]
cell = "lstm"
`

// TestCnnExperimentErrors: a bad conv key and conv without the cnn encoder
// are refused at load, naming the file, the line and the key (cnn on
// precomputed features: TestFeaturesEndToEnd).
func TestCnnExperimentErrors(t *testing.T) {
	cases := []badFile{
		{"zero channels", shapesHead + "encoder = \"cnn\"\nconv = [32, 0]\n", []string{"bad.toml:11: [model] conv", "layer 2 has 0 output channels"}},
		{"empty", shapesHead + "encoder = \"cnn\"\nconv = []\n", []string{"bad.toml:11: [model] conv", "at least one layer"}},
		{"not a list", shapesHead + "encoder = \"cnn\"\nconv = 32\n", []string{"bad.toml:11", "conv"}},
		{"patches", shapesHead + "encoder = \"patches\"\nconv = [8]\n", []string{"bad.toml:11: [model] conv", "only the cnn encoder", `"patches"`}},
		{"odd kernel", shapesHead + "encoder = \"cnn\"\nconv_kernel = 3\n", []string{"bad.toml:11: [model] conv_kernel", "even", "got 3"}},
		{"kernel on patches", shapesHead + "encoder = \"patches\"\nconv_kernel = 2\n", []string{"bad.toml:11: [model] conv_kernel", "only the cnn encoder"}},
		{"kernel swept on patches", shapesHead + "encoder = \"patches\"\n[sweep]\n\"model.conv_kernel\" = [2, 4]\n", []string{"[sweep] \"model.conv_kernel\"", "only the cnn encoder", "identical"}},
		{"tokens", goodHead + "[model]\nconv = [8]\n", []string{"bad.toml:9: [model] conv", "only the cnn encoder", `"birnn"`}},
		{"sweep", shapesHead + "encoder = \"cnn\"\n[sweep]\n\"model.conv\" = [[8], [8, 8]]\n", []string{`"model.conv"`}},
	}
	checkBadFiles(t, cases)
}

// TestConvStrideErrors: a conv_stride that does not give each layer a stride
// of 1 or 2, or that no run can use, is refused at load with the file, the
// line and the key; like conv it cannot be swept.
func TestConvStrideErrors(t *testing.T) {
	cnn := shapesHead + "encoder = \"cnn\"\n"
	cases := []badFile{
		{"shorter than conv", cnn + "conv = [8, 8]\nconv_stride = [2]\n", []string{"bad.toml:12: [model] conv_stride", "1 strides for the 2 layers of conv", "one per layer"}},
		{"longer than conv", cnn + "conv = [8]\nconv_stride = [2, 1]\n", []string{"bad.toml:12: [model] conv_stride", "2 strides for the 1 layers of conv"}},
		{"empty", cnn + "conv = [8]\nconv_stride = []\n", []string{"bad.toml:12: [model] conv_stride", "0 strides for the 1 layers"}},
		{"default conv", cnn + "conv_stride = [2, 1]\n", []string{"bad.toml:11: [model] conv_stride", "2 strides for the 3 layers of the default conv [32 64 64]"}},
		{"stride 3", cnn + "conv = [8, 8, 8]\nconv_stride = [2, 3, 2]\n", []string{"bad.toml:12: [model] conv_stride", "layer 2 has stride 3", "1 (3×3 kernel", "or 2"}},
		{"stride 0", cnn + "conv_stride = [0, 2, 2]\n", []string{"bad.toml:11: [model] conv_stride", "layer 1 has stride 0"}},
		{"not a list", cnn + "conv = [8]\nconv_stride = 2\n", []string{"bad.toml:12", "conv_stride"}},
		{"patches", shapesHead + "encoder = \"patches\"\nconv_stride = [2]\n", []string{"bad.toml:11: [model] conv_stride", "only the cnn encoder", `"patches"`}},
		{"tokens", goodHead + "[model]\nconv_stride = [1]\n", []string{"bad.toml:9: [model] conv_stride", "only the cnn encoder", `"birnn"`}},
		{"swept lists", cnn + "[sweep]\n\"model.conv_stride\" = [[2, 2, 1], [2, 2, 2]]\n", []string{`[sweep] "model.conv_stride"`}},
		{"swept values", cnn + "[sweep]\n\"model.conv_stride\" = [1, 2]\n", []string{`[sweep] "model.conv_stride"`, "cannot be swept"}},
		{"cnn run of an encoder sweep", shapesHead + "encoder = \"patches\"\nconv = [8, 8]\nconv_stride = [2, 5]\n[sweep]\nencoder = [\"patches\", \"cnn\"]\n",
			[]string{"bad.toml:12: [model] conv_stride", "layer 2 has stride 5", "encoder=cnn"}},
	}
	checkBadFiles(t, cases)
}

// TestCnnConvDefault: a cnn run without conv gets [32, 64, 64] (and no
// conv_stride: every layer stride 2; a conv_stride given for the default
// layers is kept); in a sweep over encoders, conv and conv_stride go to the
// cnn runs only.
func TestCnnConvDefault(t *testing.T) {
	e, err := Parse([]byte(shapesHead+"encoder = \"cnn\"\n"), "x.toml")
	runs := runsOf(t, e, err)
	if got := runs[0].Model.EncoderSettings["conv"]; fmt.Sprint(got) != "[32 64 64]" {
		t.Errorf("default conv %v", got)
	}
	if got := runs[0].Model.EncoderSettings["conv_kernel"]; fmt.Sprint(got) != "[4]" {
		t.Errorf("default conv_kernel %v, want [4] (recorded, not left out)", got)
	}
	if got, ok := runs[0].Model.EncoderSettings["conv_stride"]; ok {
		t.Errorf("default conv_stride %v, want none (every layer stride 2)", got)
	}
	e, err = Parse([]byte(shapesHead+"encoder = \"cnn\"\nconv_stride = [2, 2, 1]\n"), "x.toml")
	if err != nil {
		t.Fatal(err)
	}
	if runs, err = e.Runs(); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(runs[0].Model.EncoderSettings["conv"], runs[0].Model.EncoderSettings["conv_stride"]); got != "[32 64 64] [2 2 1]" {
		t.Errorf("conv_stride on the default conv: conv, conv_stride %s, want [32 64 64] [2 2 1]", got)
	}
	e, err = Parse([]byte(shapesHead+"encoder = \"patches\"\nconv = [8, 16]\nconv_stride = [2, 1]\n[sweep]\nencoder = [\"patches\", \"cnn\"]\n"), "x.toml")
	if err != nil {
		t.Fatal(err)
	}
	runs, err = e.Runs()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		want := "[]"
		if r.Model.Encoder == "cnn" {
			want = "[8 16]"
		}
		if got := fmt.Sprint(r.Model.EncoderSettings["conv"]); got != want {
			t.Errorf("%s: conv %s, want %s", r.ID, got, want)
		}
		if want == "[8 16]" {
			want = "[2 1]"
		}
		if got := fmt.Sprint(r.Model.EncoderSettings["conv_stride"]); got != want {
			t.Errorf("%s: conv_stride %s, want %s", r.ID, got, want)
		}
	}
}
