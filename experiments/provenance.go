package experiments

import (
	"crypto/sha256"
	"encoding/hex"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// Provenance is what a result traces to: the source's commit, the build
// and the run's configuration. final.json records it, summary.md lists
// the distinct ones.
type Provenance struct {
	// Commit is the source's git commit, "unknown" when neither the
	// binary's build information nor git could tell.
	Commit string `json:"commit"`
	// Dirty is "yes" when the tree had uncommitted changes, "no" when it
	// had none, "unknown" with the commit unknown.
	Dirty string `json:"dirty"`
	// CommitFrom says where Commit came from: "build" (the go command's
	// vcs stamp, runtime/debug.ReadBuildInfo, or the commit `make build`
	// links in), "git" (git asked at run time in the folder the package was
	// compiled from: right for go run and go test, but a binary built
	// earlier from that folder may not match what it says) or "unknown".
	CommitFrom string `json:"commit_from"`
	Go         string `json:"go"`   // the toolchain, e.g. "go1.26.8"
	Arch       string `json:"arch"` // GOOS/GOARCH
	// BLAS names the BLAS the products run on (gx.BLAS); Products the
	// float32 products' kernel: "kern AVX-512", "kern AVX2" or "BLAS".
	BLAS     string `json:"blas"`
	Products string `json:"products"`
	Device   string `json:"device"` // the experiment's device ("cpu", "opencl:0", …)
	// ConfigHash is the SHA-256 (first 16 hex digits) of the run's
	// config.toml as this version writes it: runs with equal hashes ran
	// the same settings.
	ConfigHash string `json:"config_hash"`
}

// unknown is the value of a provenance field that could not be found.
const unknown = "unknown"

// The commit and tree state `make build` links in (-ldflags -X; empty in
// a plain go build): the build's own, whatever GOFLAGS says of vcs stamps
// (-buildvcs=false on some machines and in CI).
var stampCommit, stampDirty string

// buildProvenance is this binary's provenance less the run's device and
// configuration, found once, when a run first asks.
var buildProvenance = sync.OnceValue(func() Provenance {
	info, _ := debug.ReadBuildInfo()
	return provenanceFrom(info, stampCommit, stampDirty, gitInSource)
})

// provenanceFrom fills the commit from the build's vcs settings, else from
// the commit linked in by make (commit, dirty: "yes"/"no"), or else from
// git (nil: not available), and the build from this process.
func provenanceFrom(info *debug.BuildInfo, commit, dirty string, git func(args ...string) (string, error)) Provenance {
	p := Provenance{Commit: unknown, Dirty: unknown, CommitFrom: unknown, Go: runtime.Version(),
		Arch: runtime.GOOS + "/" + runtime.GOARCH, BLAS: gx.BLAS(), Products: "BLAS"}
	if gx.OwnProducts() {
		p.Products = "kern " + gx.ProductsKernel()
	}
	if info != nil {
		if info.GoVersion != "" {
			p.Go = info.GoVersion
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				p.Commit, p.CommitFrom = s.Value, "build"
			case "vcs.modified":
				p.Dirty = map[string]string{"true": "yes", "false": "no"}[s.Value]
			}
		}
		if p.CommitFrom == "build" {
			if p.Dirty == "" {
				p.Dirty = unknown
			}
			return p
		}
		p.Dirty = unknown
	}
	if len(commit) >= 7 {
		p.Commit, p.CommitFrom, p.Dirty = commit, "build", unknown
		if dirty == "yes" || dirty == "no" {
			p.Dirty = dirty
		}
		return p
	}
	if git == nil {
		return p
	}
	rev, err := git("rev-parse", "HEAD")
	if err != nil || len(rev) < 7 {
		return p
	}
	p.Commit, p.CommitFrom = rev, "git"
	if st, err := git("status", "--porcelain", "--untracked-files=no"); err == nil {
		p.Dirty = "no"
		if st != "" {
			p.Dirty = "yes"
		}
	}
	return p
}

// gitInSource runs git in the folder this file was compiled from (a
// -trimpath build has no such folder, and git then fails: "unknown").
func gitInSource(args ...string) (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", exec.ErrNotFound
	}
	if _, err := exec.LookPath("git"); err != nil {
		return "", err
	}
	cmd := exec.Command("git", append([]string{"-C", filepath.Dir(file)}, args...)...)
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// configHash is the first 16 hex digits of the SHA-256 of a run's
// config.toml text.
func configHash(configTOML []byte) string {
	h := sha256.Sum256(configTOML)
	return hex.EncodeToString(h[:8])
}

// builds are the distinct builds the runs came from, each a row of
// buildsHead's cells, in the order of their first run; missing counts the
// runs that recorded none, and fromGit says that a commit was read from git
// (gitCommitNote).
func (s *Summary) builds() (rows [][]string, missing int, fromGit bool) {
	type build struct{ commit, dirty, from, goV, arch, blas, products, device string }
	count := map[build]int{}
	var order []build
	for _, f := range s.Runs {
		p := f.Provenance
		if p == nil {
			missing++
			continue
		}
		k := build{p.Commit, p.Dirty, p.CommitFrom, p.Go, p.Arch, p.BLAS, p.Products, p.Device}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
		fromGit = fromGit || k.from == "git"
	}
	for _, k := range order {
		rows = append(rows, []string{strconv.Itoa(count[k]), k.commit, k.dirty, k.from, k.goV, k.arch, k.blas, k.products, k.device})
	}
	return rows, missing, fromGit
}

// buildsHead heads the rows of Summary.builds.
var buildsHead = []string{"runs", "commit", "uncommitted changes", "commit from", "go", "arch", "BLAS", "products", "device"}

// manyBuilds, gitCommitNote and configHashNote are the provenance's notes,
// in summary.md (with `code` marks) and report.html (without).
const (
	manyBuilds    = "The runs come from more than one build"
	gitCommitNote = "A commit *from git* was read when the run started, in the folder the binary was compiled from: " +
		"it is that folder's state then, which a binary built earlier need not match (`make build` links the build's own commit in)."
	configHashNote = "Each run's `final.json` holds its `config_hash` (SHA-256 of its config.toml)."
)

// writeProvenanceMD appends to summary.md the distinct builds the runs
// came from (commit, tree, toolchain, BLAS and products' kernel, device),
// each with its runs' count, and says when they differ.
func (s *Summary) writeProvenanceMD(b *strings.Builder) {
	rows, missing, fromGit := s.builds()
	b.WriteString("\n## Provenance\n\n")
	if len(rows) > 1 {
		b.WriteString("**" + manyBuilds + "**: compare them with care.\n\n")
	}
	mdRow(b, buildsHead)
	mdSep(b, len(buildsHead))
	for _, r := range rows {
		mdRow(b, r)
	}
	if missing > 0 {
		mdRow(b, []string{strconv.Itoa(missing), "not recorded (finished before provenance was)", "", "", "", "", "", "", ""})
	}
	if fromGit {
		b.WriteString("\n" + gitCommitNote + "\n")
	}
	b.WriteString("\n" + configHashNote + "\n")
}
