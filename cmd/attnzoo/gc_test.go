package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestTuneGC: without GOGC the collector runs at gcPercent; a GOGC in the
// environment is left as the runtime read it.
func TestTuneGC(t *testing.T) {
	old, had := os.LookupEnv("GOGC")
	prev := debug.SetGCPercent(100)
	defer func() {
		debug.SetGCPercent(prev)
		if had {
			os.Setenv("GOGC", old)
		} else {
			os.Unsetenv("GOGC")
		}
	}()
	os.Unsetenv("GOGC")
	tuneGC()
	if got := debug.SetGCPercent(100); got != 25 {
		t.Errorf("without GOGC: GC percent %d, want 25", got)
	}
	os.Setenv("GOGC", "80")
	tuneGC() // the runtime read GOGC at start; tuneGC must not override it
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set: GC percent %d, want the runtime's (100, set above)", got)
	}
}
