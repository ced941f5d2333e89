package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// profiles are the --cpuprofile and --memprofile flags of `attnzoo run`
// and `attnzoo bench`: pprof files for `go tool pprof`.
type profiles struct {
	cpu, mem string
	cpuFile  *os.File
}

func (p *profiles) flags(fs *flag.FlagSet) {
	fs.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile to `FILE` (go tool pprof)")
	fs.StringVar(&p.mem, "memprofile", "", "write an allocation profile to `FILE` at the end (go tool pprof)")
}

// start opens the files (so a bad path fails before any work) and starts
// the CPU profile.
func (p *profiles) start() error {
	if p.mem != "" {
		f, err := os.Create(p.mem)
		if err != nil {
			return fmt.Errorf("--memprofile: %w", err)
		}
		f.Close()
	}
	if p.cpu == "" {
		return nil
	}
	f, err := os.Create(p.cpu)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--cpuprofile %s: %w", p.cpu, err)
	}
	p.cpuFile = f
	return nil
}

// stop ends the CPU profile and writes the allocation profile (every
// allocation since the program started, sampled as runtime.MemProfileRate
// says; `go tool pprof -sample_index=alloc_space` or inuse_space).
func (p *profiles) stop() error {
	var errs []error
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
		if err := p.cpuFile.Close(); err != nil {
			errs = append(errs, fmt.Errorf("--cpuprofile: %w", err))
		}
		p.cpuFile = nil
	}
	if p.mem != "" {
		runtime.GC() // the in-use figures as of now
		f, err := os.Create(p.mem)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("--memprofile: %w", err))
		}
	}
	return errors.Join(errs...)
}
