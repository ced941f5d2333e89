package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startHolder starts `attnzoo run` with args and waits until the lock file
// lock (under the results folder) names it: the process holds its lock.
func startHolder(t *testing.T, bin, lock string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var errs strings.Builder
	cmd.Stderr = &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGKILL); cmd.Wait() })
	want := fmt.Sprintf("pid %d on ", cmd.Process.Pid)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if data, _ := os.ReadFile(lock); strings.HasPrefix(string(data), want) {
			return cmd
		}
	}
	t.Fatalf("%v: %s does not name it after 60 s; stderr:\n%s", args, lock, errs.String())
	return nil
}

// refused runs `attnzoo run` with args (stopped after 60 s: a run that is
// not refused trains) and checks that it exits non-zero with each of wants
// in its output.
func refused(t *testing.T, bin string, args []string, wants ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if err == nil || ctx.Err() != nil {
		t.Errorf("%v was not refused (%v):\n%s", args, err, out)
		return
	}
	for _, w := range wants {
		if !strings.Contains(string(out), w) {
			t.Errorf("%v: output lacks %q:\n%s", args, w, out)
		}
	}
}

// TestOneWriterPerFolder: while one `attnzoo run` writes a results folder
// (a sweep too long to finish during the test), a second on the same
// --out, resumed or as a shard, is refused, naming the first's pid and
// host (the lock file's line); the holder is killed at the end.
func TestOneWriterPerFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	exp := filepath.Join(dir, "kill.toml")
	os.WriteFile(exp, []byte(strings.Replace(killExp, "steps = 120", "steps = 1000000", 1)), 0o644)
	out := filepath.Join(dir, "out")
	first := startHolder(t, bin, filepath.Join(out, "kill", ".lock"), "run", exp, "--out", out, "--workers", "1")
	host, _ := os.Hostname()
	holder := fmt.Sprintf("pid %d on %s since ", first.Process.Pid, host)
	refused(t, bin, []string{"run", exp, "--out", out, "--workers", "1", "--resume"}, "is being written by another attnzoo run", holder)
	refused(t, bin, []string{"run", exp, "--out", out, "--workers", "1", "--resume", "--shard", "1/2"}, holder)
}

// TestShardsShareAFolder: the shard setup of docs/many-machines.md, two
// shards into one --out, runs side by side: while both hold their locks
// (each's lock file names it), a second copy of either shard, an
// unsharded run and a shard of another count are refused, naming the
// holder; both shards then finish, and collect finds the six runs. A
// run's config.toml edited afterwards (not the settings its config_hash
// was taken of) makes collect exit 1 naming the run.
func TestShardsShareAFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	exp := filepath.Join(dir, "kill.toml")
	os.WriteFile(exp, []byte(strings.Replace(killExp, "steps = 120", "steps = 300", 1)), 0o644)
	out := filepath.Join(dir, "out")
	folder := filepath.Join(out, "kill")
	run := func(extra ...string) []string {
		return append([]string{"run", exp, "--out", out, "--workers", "1", "--resume"}, extra...)
	}
	s0 := startHolder(t, bin, filepath.Join(folder, ".lock-shard-0-of-2"), run("--shard", "0/2")...)
	s1 := startHolder(t, bin, filepath.Join(folder, ".lock-shard-1-of-2"), run("--shard", "1/2")...)
	refused(t, bin, run("--shard", "0/2"), fmt.Sprintf("pid %d on ", s0.Process.Pid))
	refused(t, bin, run("--shard", "1/2"), fmt.Sprintf("pid %d on ", s1.Process.Pid))
	refused(t, bin, run(), fmt.Sprintf("shard 0/2: pid %d on ", s0.Process.Pid), fmt.Sprintf("shard 1/2: pid %d on ", s1.Process.Pid))
	refused(t, bin, run("--shard", "0/3"), "another count")
	for _, c := range []*exec.Cmd{s0, s1} {
		if err := c.Wait(); err != nil {
			t.Fatalf("%v: %v", c.Args, err)
		}
	}
	stdout, errs, code := runCLI(t, "collect", folder)
	if code != 0 || !strings.Contains(errs, "6 finished runs, 0 failed") {
		t.Fatalf("collect: exit %d, %s\n%s", code, errs, stdout)
	}
	cfg := filepath.Join(folder, "runs", "scorer=dot_seed=2", "config.toml")
	text, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, []byte(strings.Replace(string(text), "lr = 0.003\n", "lr = 0.01\n", 1)), 0o644)
	if _, errs, code := runCLI(t, "collect", folder); code != 1 || !strings.Contains(errs, "run scorer=dot_seed=2") {
		t.Errorf("collect of an edited config.toml: exit %d, %s", code, errs)
	}
}
