package doccheck

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
)

// root is the repository, two folders up from this package.
const root = "../.."

// docFiles are the Markdown files whose commands are checked.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "bench/README.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		files = append(files, filepath.ToSlash(strings.TrimPrefix(d, root+string(filepath.Separator))))
	}
	return files
}

func parseFile(t *testing.T, name string) []Block {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := Parse(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}

func TestParse(t *testing.T) {
	doc := "# x\n\n<!-- doc: run -->\n```sh\n# a comment\nattnzoo list \\\n  --json   # all of it\n\nattnzoo score --input '1 # 2'\n```\n\n" +
		"```toml\nx = 1\n```\n<!-- doc: not run: needs a GPU -->\n\n```console\n$ echo a\na\n...\n\n$ true\n```\n"
	blocks, err := Parse("d.md", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 {
		t.Fatalf("%d blocks, want 2 (the toml block is not one of commands)", len(blocks))
	}
	b := blocks[0]
	if b.Line != 4 || b.Lang != "sh" || b.Mode != Run || !slices.Equal(b.Commands(), []string{"attnzoo list --json", "attnzoo score --input '1 # 2'"}) {
		t.Errorf("block 0: line %d lang %s mode %v commands %q", b.Line, b.Lang, b.Mode, b.Commands())
	}
	c := blocks[1]
	if c.Mode != NotRun || c.Reason != "needs a GPU" || c.Lang != "console" {
		t.Errorf("block 1: mode %v reason %q lang %s", c.Mode, c.Reason, c.Lang)
	}
	steps := c.Steps()
	if len(steps) != 2 || steps[0].Command != "echo a" || !slices.Equal(steps[0].Output, []string{"a", "..."}) ||
		steps[1].Command != "true" || len(steps[1].Output) != 0 {
		t.Errorf("steps %q", steps)
	}
	for _, bad := range []struct{ doc, want string }{
		{"```sh\nls\n```\n", "d.md:1: a ```sh block without a marker"},
		{"<!-- doc: run -->\n```toml\n```\n", "d.md:2: the marker of line 1 is followed by a ```toml block"},
		{"<!-- doc: run -->\ntext\n```sh\n```\n", "d.md:2: the marker of line 1 is followed by text"},
		{"<!-- doc: not run -->\n```sh\n```\n", "d.md:1: <!-- doc: not run --> needs a reason"},
		{"<!-- doc: sometimes -->\n```sh\n```\n", `d.md:1: unknown marker "sometimes"`},
		{"<!-- doc: run -->\n```sh\nls\n", "d.md:2: a fenced block that is never closed"},
		{"<!-- doc: run -->\n", "d.md:1: a marker at the end of the file"},
	} {
		_, err := Parse("d.md", []byte(bad.doc))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want one containing %q", bad.doc, err, bad.want)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		want, got []string
		ok        bool
	}{
		{[]string{"a", "b"}, []string{"a", "b "}, true},
		{[]string{"a", "b"}, []string{"a"}, false},
		{[]string{"a", "...", "d"}, []string{"a", "b", "c", "d"}, true},
		{[]string{"a", "...", "d"}, []string{"a", "d"}, true},
		{[]string{"a", "..."}, []string{"a", "b"}, true},
		{[]string{"a", "...", "d"}, []string{"a", "b"}, false},
	} {
		if Match(c.want, c.got) != c.ok {
			t.Errorf("Match(%q, %q) = %v", c.want, c.got, !c.ok)
		}
	}
}

// TestDocs: every command block of the docs is marked; README stays a
// first hour's read (at most 12 KiB) and starts with the two commands,
// which CI's script runs; CI runs the ci-blocks; every relative link
// points at a file that exists.
func TestDocs(t *testing.T) {
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	ciLines := map[string]bool{}
	for _, l := range strings.Split(string(ci), "\n") {
		ciLines[strings.TrimSpace(l)] = true
	}
	if !strings.Contains(string(ci), "ATTNZOO_DOC_CI=1 go test") || !strings.Contains(string(ci), "./internal/doccheck/") {
		t.Error(".ci/run does not run the doc commands marked ci (ATTNZOO_DOC_CI=1 go test ... ./internal/doccheck/)")
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(readme) > 12<<10 {
		t.Errorf("README.md is %d bytes, over 12 KiB: the reference belongs in docs/", len(readme))
	}
	for _, name := range docFiles(t) {
		blocks := parseFile(t, name)
		for _, b := range blocks {
			if b.Mode != CIScript {
				continue
			}
			for _, c := range b.Commands() {
				if !ciLines[c] {
					t.Errorf("%s:%d: %q is marked ci-script but is no line of .ci/run", name, b.Line, c)
				}
			}
		}
		if name == "README.md" {
			first := blocks[0]
			cmds := first.Commands()
			if !slices.Equal(cmds, []string{"make demo", "make test"}) || first.Mode != CIScript {
				t.Errorf("README.md's first commands are %q (%v), want make demo and make test, run by .ci/run", cmds, first.Mode)
			}
			if h := strings.Index(string(readme), "\n## "); h >= 0 && h < strings.Index(string(readme), "make demo") {
				t.Error("README.md has a section before its two commands")
			}
		}
		checkLinks(t, name)
	}
}

var linkRE = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)\s]*)?\)`)

// checkLinks: each relative link of a Markdown file names a file or folder
// that exists, relative to the file, and a heading of it where it names one.
func checkLinks(t *testing.T, name string) {
	data, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range linkRE.FindAllStringSubmatch(string(data), -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		path := filepath.Join(root, filepath.Dir(name), target)
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: link to %s: %v", name, target, err)
			continue
		}
		if anchor := strings.TrimPrefix(m[2], "#"); anchor != "" && strings.HasSuffix(target, ".md") {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(headingSlugs(string(data)), anchor) {
				t.Errorf("%s: link to %s#%s: no such heading", name, target, anchor)
			}
		}
	}
}

// headingSlugs are the anchors GitHub gives a Markdown file's headings:
// lower case, punctuation but hyphens and underscores dropped, spaces
// turned into hyphens (the rare duplicate heading, which GitHub numbers, is
// not handled). Headings inside fenced blocks are not headings.
func headingSlugs(md string) []string {
	var slugs []string
	inFence := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		slugs = append(slugs, b.String())
	}
	return slugs
}

// TestDocCommands runs the run-blocks of every doc file (and the ci-blocks
// too with ATTNZOO_DOC_CI=1), each file's in order in a scratch copy of the
// repository with a freshly built attnzoo first on the PATH.
func TestDocCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the doc commands build attnzoo and run it")
	}
	withCI := os.Getenv("ATTNZOO_DOC_CI") == "1"
	bin := filepath.Join(t.TempDir(), "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "attnzoo"), "./cmd/attnzoo")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "ATTNZOO_DOC_CI=") {
			env = append(env, kv)
		}
	}
	for _, name := range docFiles(t) {
		var todo []Block
		hasCI := false
		for _, b := range parseFile(t, name) {
			if b.Mode == Run || (withCI && b.Mode == CI) {
				todo = append(todo, b)
			}
			hasCI = hasCI || b.Mode == CI
		}
		// With ATTNZOO_DOC_CI=1 only the files with ci-blocks run (their
		// run-blocks too, in order): go test ran the others already.
		if len(todo) == 0 || (withCI && !hasCI) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			dir := scratchCopy(t, withCI)
			for _, b := range todo {
				runBlock(t, b, dir, env)
			}
		})
	}
}

// runBlock runs b in dir: an sh block whole under bash -eu -o pipefail; a
// console block command by command, each output checked.
func runBlock(t *testing.T, b Block, dir string, env []string) {
	t.Helper()
	limit := 2 * time.Minute
	if b.Mode == CI {
		limit = 10 * time.Minute
	}
	run := func(script string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
		cmd.Dir, cmd.Env = dir, env
		cmd.WaitDelay = 10 * time.Second // a child the timeout's kill left holding the output
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	start := time.Now()
	if b.Lang != "console" {
		if out, err := run(b.Text); err != nil {
			t.Errorf("%s:%d (%v): %v\n%s\noutput:\n%s", b.File, b.Line, b.Mode, err, b.Text, tail(out))
		}
	} else {
		for _, s := range b.Steps() {
			out, err := run(s.Command)
			if err != nil {
				t.Errorf("%s:%d: $ %s: %v\n%s", b.File, b.Line, s.Command, err, tail(out))
				continue
			}
			got := strings.Split(strings.TrimRight(out, "\n"), "\n")
			if out == "" {
				got = nil
			}
			if !Match(s.Output, got) {
				t.Errorf("%s:%d: $ %s\nprinted:\n%s\nthe doc shows:\n%s", b.File, b.Line, s.Command, out, strings.Join(s.Output, "\n"))
			}
		}
	}
	t.Logf("%s:%d (%v): %.1fs", b.File, b.Line, b.Mode, time.Since(start).Seconds())
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

// scratchCopy copies the repository (not .git, bin or test binaries, and
// results only when withResults: CI's make demo trained results/quickstart,
// which README resumes) into a temporary folder: the doc's commands read its
// files and write where a reader's would.
func scratchCopy(t *testing.T, withResults bool) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel == ".git" || rel == "bin" || (rel == "results" && !withResults) {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() || strings.HasSuffix(rel, ".test") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestHeadingSlugs: anchors as GitHub makes them, worked by hand (lower
// case; ":", "(", ")", "'", "," and "`" dropped; spaces to hyphens).
func TestHeadingSlugs(t *testing.T) {
	md := "# Tasks\n## Your own corpus: fixed splits (Multi30k, IWSLT'14), gold alignments\n```sh\n# not a heading\n```\n### Subwords: `attnzoo bpe`\n"
	want := []string{"tasks", "your-own-corpus-fixed-splits-multi30k-iwslt14-gold-alignments", "subwords-attnzoo-bpe"}
	if got := headingSlugs(md); !slices.Equal(got, want) {
		t.Errorf("slugs %q, want %q", got, want)
	}
}
