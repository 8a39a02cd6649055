package cli

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/deploysync/deploysync/simulate"
)

// WriteChart draws a timeline as an SVG line chart: over the seconds of the
// run, each ReplicaSet's spec.replicas (thin, one colour each), the pods
// that are not terminating (thick black) and the available pods (thick
// green, dashed). Values hold from one step to the next. With many
// ReplicaSets only those the table shows get a line ([simulate.Timeline.Active]);
// the legend counts the others.
func WriteChart(w io.Writer, tl *simulate.Timeline) error {
	p := plot.New()
	p.Title.Text = "Rollout of " + tl.Deployment + " (" + string(tl.Outcome) + ")"
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = "seconds since the start"
	p.Y.Label.Text = "pods"
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(12), -vg.Points(4)
	p.Add(plotter.NewGrid())

	names := tl.Active()
	folded := len(rsNames(tl)) - len(names)
	prefix := deploymentName(tl) + "-"
	for i, name := range names {
		pts := series(tl, func(s *simulate.Step) (float64, bool) {
			for _, rs := range s.ReplicaSets {
				if rs.Name == name {
					return float64(rs.Replicas), true
				}
			}
			return 0, false
		})
		if err := addLine(p, pts, "spec.replicas of "+strings.TrimPrefix(name, prefix), plotutil.Color(i+2), vg.Points(1.5), nil); err != nil {
			return err
		}
	}
	if folded > 0 {
		// A legend entry without a line: the ReplicaSets left out.
		p.Legend.Add(fmt.Sprintf("+ %d more ReplicaSets at 0 (not drawn)", folded))
	}
	total := series(tl, func(s *simulate.Step) (float64, bool) { return float64(s.Totals.Pods), true })
	if err := addLine(p, total, "pods (not terminating)", color.Black, vg.Points(2.5), nil); err != nil {
		return err
	}
	avail := series(tl, func(s *simulate.Step) (float64, bool) { return float64(s.Totals.Available), true })
	if err := addLine(p, avail, "available pods", color.RGBA{G: 150, A: 255}, vg.Points(2.5), []vg.Length{vg.Points(6), vg.Points(3)}); err != nil {
		return err
	}
	// Room above the lines for the legend, whole-number ticks.
	peak := 1.0
	for _, pt := range total {
		peak = max(peak, pt.Y)
	}
	p.Y.Min, p.Y.Max = 0, peak*1.45+1
	p.X.Min, p.X.Max = 0, tl.Duration().Seconds()*1.03+1
	p.Y.Tick.Marker = integerTicks{}
	wt, err := p.WriterTo(9*vg.Inch, 4.5*vg.Inch, "svg")
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

func addLine(p *plot.Plot, pts plotter.XYs, label string, c color.Color, width vg.Length, dashes []vg.Length) error {
	if len(pts) == 0 {
		return nil
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return fmt.Errorf("chart %s: %w", label, err)
	}
	l.StepStyle = plotter.PostStep
	l.LineStyle = draw.LineStyle{Color: c, Width: width, Dashes: dashes}
	p.Add(l)
	p.Legend.Add(label, l)
	return nil
}

// series samples a value at every step where it exists.
func series(tl *simulate.Timeline, value func(*simulate.Step) (float64, bool)) plotter.XYs {
	var pts plotter.XYs
	for i := range tl.Steps {
		s := &tl.Steps[i]
		if v, ok := value(s); ok {
			pts = append(pts, plotter.XY{X: s.Elapsed.Seconds(), Y: v})
		}
	}
	return pts
}

func rsNames(tl *simulate.Timeline) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range tl.Steps {
		for _, rs := range s.ReplicaSets {
			if !seen[rs.Name] {
				seen[rs.Name] = true
				out = append(out, rs.Name)
			}
		}
	}
	return out
}

func deploymentName(tl *simulate.Timeline) string {
	if i := strings.LastIndexByte(tl.Deployment, '/'); i >= 0 {
		return tl.Deployment[i+1:]
	}
	return tl.Deployment
}

// integerTicks marks whole numbers of pods, about six of them.
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1.0
	for (hi-lo)/step > 6 {
		switch {
		case fmt.Sprint(step)[0] == '2':
			step *= 2.5
		default:
			step *= 2
		}
	}
	var out []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	return out
}
