package tbevents_test

import (
	"fmt"
	"log"
	"os"

	"github.com/attnzoo/attnzoo/internal/tbevents"
)

// A file with one scalar: the file-version event and the scalar event, each
// framed in 16 bytes. File version: wall_time 9 bytes + file_version 2 + 13
// = 24, so 40. Scalar: wall_time 9 + step 2 + summary 2 + (value 2 + (tag
// 2 + 10 + simple_value 5)) = 32, so 48. 88 in all.
func Example() {
	dir, err := os.MkdirTemp("", "tb")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	w, err := tbevents.Create(dir)
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Scalar("train/loss", 1, 2.5); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	st, err := os.Stat(w.Path())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.Size(), "bytes")
	// Output: 88 bytes
}
