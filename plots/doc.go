// Package plots draws attnzoo's figures — alignment heatmaps, scorer grids,
// learning curves, comparison bars, captioning overlays — from plain Go
// slices and gonum matrices with gonum/plot. It knows nothing of gorgonia.
//
// The figures themselves land with the figures issue; the import below pins
// gonum/plot in go.mod meanwhile.
package plots

import _ "gonum.org/v1/plot" // pinned dependency; see doc above
