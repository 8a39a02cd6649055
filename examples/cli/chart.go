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
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/deploysync/deploysync/simulate"
)

// WriteChart draws a timeline as an SVG line chart: over the seconds of the
// run, the pods that are not terminating (thick black), the available pods
// (thick green, dashed) and, drawn over them so that a ReplicaSet whose size
// equals a total stays visible, each ReplicaSet's spec.replicas (thin, one
// colour each, each a little apart from the others where they coincide).
// Values hold from one step to the next. With many ReplicaSets only those
// the table shows get a line ([simulate.Timeline.Active]); the legend
// counts the others.
//
// When nothing drawn changes for most of the run (a rollout that waits for
// its progress deadline), the axis ends shortly after the last change and
// the legend says until when the values stayed and how the run ended, so
// the seconds where things happen are not squeezed into the left edge.
func WriteChart(w io.Writer, tl *simulate.Timeline) error {
	p := plot.New()
	p.Title.Text = "Rollout of " + tl.Deployment + " (" + string(tl.Outcome) + ")"
	p.Title.Padding = vg.Points(10)
	p.X.Label.Text = "seconds since the start"
	p.Y.Label.Text = "pods"
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(12), -vg.Points(6)
	p.Legend.Padding = vg.Points(3)
	p.Add(plotter.NewGrid())

	end := tl.Duration().Seconds()
	shown := end
	idle := false
	if last := lastChange(tl); end > 20 && last < end/4 {
		shown, idle = math.Max(last*1.5, last+10), true
	}
	// Values hold to the right edge (a run of one step is a level line).
	until := shown*1.03 + 1
	total := series(tl, until, func(s *simulate.Step) (float64, bool) { return float64(s.Totals.Pods), true })
	if err := addLine(p, total, "pods (not terminating)", color.Black, vg.Points(3), nil); err != nil {
		return err
	}
	avail := series(tl, until, func(s *simulate.Step) (float64, bool) { return float64(s.Totals.Available), true })
	if err := addLine(p, avail, "available pods", color.RGBA{G: 150, A: 255}, vg.Points(3), []vg.Length{vg.Points(7), vg.Points(4)}); err != nil {
		return err
	}
	peak := 1.0
	for _, pt := range total {
		peak = max(peak, pt.Y)
	}
	names := tl.Active()
	folded := len(rsNames(tl)) - len(names)
	prefix := deploymentName(tl) + "-"
	// Coinciding ReplicaSet lines sit a hair apart: 1% of the axis each.
	nudge := peak * 0.01
	for i, name := range names {
		pts := series(tl, until, func(s *simulate.Step) (float64, bool) {
			for _, rs := range s.ReplicaSets {
				if rs.Name == name {
					return float64(rs.Replicas), true
				}
			}
			return 0, false
		})
		for j := range pts {
			pts[j].Y += nudge * float64(i)
		}
		if err := addLine(p, pts, "spec.replicas of "+strings.TrimPrefix(name, prefix), plotutil.Color(i+2), vg.Points(1.75), nil); err != nil {
			return err
		}
	}
	if folded > 0 {
		// A legend entry without a line: the ReplicaSets left out.
		p.Legend.Add(fmt.Sprintf("+ %d more ReplicaSets at 0 (not drawn)", folded))
	}
	if idle {
		p.Legend.Add(fmt.Sprintf("unchanged from %s s to the end at %s s (%s)", seconds(lastChange(tl)), seconds(end), tl.Outcome))
	}
	// Room above the lines for the legend, a line at 0 clear of the axis,
	// whole-number ticks.
	p.Y.Min, p.Y.Max = -peak*0.03, peak*1.45+1
	p.X.Min, p.X.Max = 0, until
	p.Y.Tick.Marker = integerTicks{}
	c := vgsvg.New(9*vg.Inch, 4.75*vg.Inch)
	// A margin above the title.
	p.Draw(draw.Crop(draw.New(c), 0, -vg.Points(4), 0, -vg.Points(8)))
	_, err := c.WriteTo(w)
	return err
}

// lastChange is the elapsed seconds of the last step where something the
// chart draws changed.
func lastChange(tl *simulate.Timeline) float64 {
	last := 0.0
	for i := 1; i < len(tl.Steps); i++ {
		a, b := &tl.Steps[i-1], &tl.Steps[i]
		if a.Totals.Pods != b.Totals.Pods || a.Totals.Available != b.Totals.Available || !sameSizes(a, b) {
			last = b.Elapsed.Seconds()
		}
	}
	return last
}

func sameSizes(a, b *simulate.Step) bool {
	if len(a.ReplicaSets) != len(b.ReplicaSets) {
		return false
	}
	for i := range a.ReplicaSets {
		if a.ReplicaSets[i].Name != b.ReplicaSets[i].Name || a.ReplicaSets[i].Replicas != b.ReplicaSets[i].Replicas {
			return false
		}
	}
	return true
}

func seconds(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

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

// series samples a value at every step where it exists; a value that
// exists at the last step holds until the given x.
func series(tl *simulate.Timeline, until float64, value func(*simulate.Step) (float64, bool)) plotter.XYs {
	var pts plotter.XYs
	for i := range tl.Steps {
		s := &tl.Steps[i]
		if v, ok := value(s); ok {
			pts = append(pts, plotter.XY{X: s.Elapsed.Seconds(), Y: v})
		}
	}
	if n := len(pts); n > 0 && len(tl.Steps) > 0 {
		if last := &tl.Steps[len(tl.Steps)-1]; pts[n-1].X == last.Elapsed.Seconds() && until > pts[n-1].X {
			pts = append(pts, plotter.XY{X: until, Y: pts[n-1].Y})
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
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v+0, 'f', 0, 64)}) // +0 turns −0 into 0
	}
	return out
}
