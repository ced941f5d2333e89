// Package plots draws attnzoo's paper-style figures with gonum/plot from
// plain Go values (slices, strings, image.Image); it knows nothing of
// gorgonia or of the rest of attnzoo, so it can be used on its own.
//
// Figures:
//
//   - [AlignmentHeatmap]: one attention matrix (Bahdanau et al. 2015, Fig. 3).
//   - [ScorerGrid]: the same example under several scorers, one shared scale.
//   - [LearningCurves]: metric against step, mean across seeds with a band.
//   - [Bars]: a final metric per sweep point, mean ± spread across seeds.
//   - [CaptionOverlay]: attention over an image, one panel per word
//     (Xu et al. 2015, Figs. 2–3).
//
// Conventions: an attention matrix is indexed [target][source] (rows are
// target tokens, columns source tokens), and is drawn with the first target
// token at the top. Weights are drawn on a fixed 0..1 scale, white = 0 and
// black = 1, unless an option says otherwise. Every constructor validates its
// input and returns an error naming the offending sizes; it never panics on
// user data. A [Figure] has a size fit for a two-column paper ([SingleColumn],
// [DoubleColumn]) and renders to PNG, SVG and PDF; SVG and PDF output is
// byte-for-byte deterministic.
package plots
