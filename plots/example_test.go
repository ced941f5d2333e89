package plots_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/attnzoo/attnzoo/plots"
)

// Draw an alignment heatmap and save it as PNG, SVG and PDF.
func ExampleSave() {
	dir, err := os.MkdirTemp("", "figures")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	fig, err := plots.AlignmentHeatmap(plots.Alignment{
		Src:     []string{"the", "cat", "<end>"},
		Tgt:     []string{"le", "chat", "<end>"},
		Weights: [][]float64{{0.9, 0.05, 0.05}, {0.1, 0.8, 0.1}, {0, 0.1, 0.9}},
		Gold:    [][2]int{{0, 0}, {1, 1}, {2, 2}},
		Title:   "dot",
	}, plots.HeatmapOptions{})
	if err != nil {
		log.Fatal(err)
	}
	paths, err := plots.Save(filepath.Join(dir, "alignment"), fig, plots.SaveOptions{PDF: true, DPI: 72})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range paths {
		fmt.Println(filepath.Base(p))
	}
	// Output:
	// alignment.png
	// alignment.svg
	// alignment.pdf
}

// Seeds logged on different step grids: CommonSteps keeps the steps all
// of them logged.
func ExampleAggregate() {
	runs := []plots.Run{
		{Steps: []int{0, 100, 200}, Values: []float64{3, 2, 1}},
		{Steps: []int{0, 100, 200}, Values: []float64{4, 2, 0.5}},
		{Steps: []int{0, 50, 100, 200, 300}, Values: []float64{5, 4, 2, 1.5, 1}},
	}
	c, err := plots.Aggregate(runs, plots.CommonSteps, plots.SD)
	if err != nil {
		log.Fatal(err)
	}
	for k, s := range c.Stats {
		fmt.Printf("step %3d: mean %.2f ± %.2f (min %.2f, max %.2f)\n", c.Steps[k], s.Mean, s.SD, s.Min, s.Max)
	}
	// Output:
	// step   0: mean 4.00 ± 1.00 (min 3.00, max 5.00)
	// step 100: mean 2.00 ± 0.00 (min 2.00, max 2.00)
	// step 200: mean 1.00 ± 0.50 (min 0.50, max 1.50)
}

// The adapter hands plotter.HeatMap the weights with the first target
// token on the top row (the grid's row 0 is at the bottom).
func ExampleAlignmentGrid() {
	g := plots.AlignmentGrid{
		{0.1, 0.9}, // first target token
		{0.7, 0.3}, // second target token
	}
	c, r := g.Dims()
	fmt.Println("dims:", c, r)
	fmt.Println("bottom row:", g.Z(0, 0), g.Z(1, 0))
	fmt.Println("top row:   ", g.Z(0, 1), g.Z(1, 1))
	// Output:
	// dims: 2 2
	// bottom row: 0.7 0.3
	// top row:    0.1 0.9
}
