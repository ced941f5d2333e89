package captioning_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/attnzoo/attnzoo/metrics"
	"github.com/attnzoo/attnzoo/tasks"
	"github.com/attnzoo/attnzoo/tasks/captioning"
)

// Generate a small shapes data set with every scene holding exactly one
// object, and read its sizes and the gold box of a word.
func Example() {
	task, err := captioning.New("shapes", tasks.Options{
		"train": int64(50), "dev": int64(5), "test": int64(5), // as BurntSushi/toml decodes them
		"size": int64(32), "max_objects": int64(1), "captions_per_image": int64(2),
	})
	if err != nil {
		log.Fatal(err)
	}
	data, err := task.Load(1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(data.Train), len(data.Dev), len(data.Test), data.C, data.H, data.W)
	ex := data.Test[0]
	fmt.Println(len(ex.Refs), ex.Image.C*ex.Image.H*ex.Image.W == len(ex.Image.Pix))
	// The one object's shape word names one box, which converts to a
	// metrics.Region for localisation scores.
	shape := ex.Caption[len(ex.Caption)-1]
	boxes := ex.Boxes[shape]
	fmt.Println(len(boxes), metrics.Region(boxes[0]) == metrics.Region{X0: boxes[0].X0, Y0: boxes[0].Y0, X1: boxes[0].X1, Y1: boxes[0].Y1})
	// Output:
	// 100 5 5 3 32 32
	// 2 true
	// 1 true
}

func ExampleNew_unknownKey() {
	_, err := captioning.New("shapes", tasks.Options{"sise": int64(64)})
	fmt.Println(err)
	// Output:
	// captioning: shapes: unknown key "sise" (have: captions_per_image, dev, max_objects, min_objects, noise, size, test, train, unseen)
}

func ExampleWriteNPY() {
	var b bytes.Buffer
	if err := captioning.WriteNPY(&b, []int{2, 1, 3}, []float32{1, 2, 3, 4, 5, 6}); err != nil {
		log.Fatal(err)
	}
	shape, data, err := captioning.ReadNPY(&b)
	fmt.Println(shape, data, err)
	// Output:
	// [2 1 3] [1 2 3 4 5 6] <nil>
}
