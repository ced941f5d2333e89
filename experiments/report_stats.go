package experiments

import (
	"fmt"
	"html"
	"strings"
)

// statsHTML is report.html's part for the statistics: the 95% confidence
// interval per sweep point, then the pairwise Welch tests (as in summary.md).
func statsHTML(s *Summary) string {
	var b strings.Builder
	esc := html.EscapeString
	b.WriteString("<h2>95% confidence interval of the mean per sweep point</h2>\n")
	b.WriteString("<p>Student's t: mean ± t<sub>0.975, n−1</sub> · sd/√n (n seeds; t = 4.303 for n = 3).</p>\n<table>\n<tr><th>point</th><th>seeds</th>")
	for _, m := range s.Metrics {
		fmt.Fprintf(&b, "<th>%s</th>", esc(m))
	}
	b.WriteString("</tr>\n")
	for _, p := range s.Points() {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td>", esc(p.Label), len(p.Runs))
		for _, m := range s.Metrics {
			fmt.Fprintf(&b, "<td>%s</td>", esc(ciCell(m, p.values(m))))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
	cs := s.Comparisons()
	if len(cs) == 0 {
		return b.String()
	}
	fmt.Fprintf(&b, "<h2>Pairwise comparisons</h2>\n<p>Welch's t-test (two-sided, Welch–Satterthwaite df) between sweep points on %s; * marks p &lt; %g (not corrected for the number of comparisons).</p>\n",
		esc(strings.Join(headlineMetrics, ", ")), Alpha)
	b.WriteString("<table>\n<tr><th>metric</th><th>where</th><th>a</th><th>b</th><th>mean a</th><th>mean b</th><th>t</th><th>df</th><th>p</th><th></th></tr>\n")
	for _, c := range cs {
		star := ""
		if c.Significant() {
			star = "*"
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			esc(c.Metric), esc(c.Group), esc(c.A), esc(c.B), esc(fmtMetric(c.Metric, c.MeanA)), esc(fmtMetric(c.Metric, c.MeanB)),
			esc(fmtStat(c.T)), esc(fmtStat(c.DF)), esc(fmtP(c.P)), star)
	}
	b.WriteString("</table>\n")
	return b.String()
}
