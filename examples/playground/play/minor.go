package play

import (
	"fmt"
	"strings"
)

// Differences are what a run's Kubernetes minor decides differently from
// another minor on the same request, found by running the request as both
// minors decide it and comparing the transcripts.
type Differences struct {
	// Minor is the run's minor, Other the one it is compared with.
	Minor string `json:"minor"`
	Other string `json:"other"`
	// Refused is Other's problem with the request when Other refuses what
	// Minor runs ("" when both run it).
	Refused string `json:"refused,omitempty"`
	// Names pairs the ReplicaSets' names that differ: the pod-template-hash
	// of each minor's template layout.
	Names []NamePair `json:"names,omitempty"`
	// Outcome is Other's outcome, syncs and duration when they differ from
	// the run's ("" when the same).
	Outcome string `json:"outcome,omitempty"`
	// Steps counts the steps whose transcript differs once the names are
	// paired; Lines shows the first few such steps' differing lines.
	Steps int        `json:"steps"`
	Lines []LineDiff `json:"lines,omitempty"`
}

// NamePair is a ReplicaSet as two minors name it.
type NamePair struct {
	Minor string `json:"minor"`
	Other string `json:"other"`
}

// LineDiff is a step's lines as two minors print them: those only the
// run's minor prints (Minor) and those only the other prints (Other).
type LineDiff struct {
	Step  int      `json:"step"`
	Minor []string `json:"minor,omitempty"`
	Other []string `json:"other,omitempty"`
}

// maxLineDiffs is how many differing steps Differences shows.
const maxLineDiffs = 3

// compare says what res's minor decides differently from other's run of
// the same request.
func compare(res, o Result, other string) *Differences {
	d := &Differences{Minor: res.Minor, Other: other}
	if len(o.Problems) > 0 {
		d.Refused = o.Problems[0].Message
		return d
	}
	// The ReplicaSets in order of appearance: the same ReplicaSet of the
	// rollout under each minor's name.
	var rename []string
	for i := 0; i < len(res.ReplicaSets) && i < len(o.ReplicaSets); i++ {
		a, b := res.ReplicaSets[i], o.ReplicaSets[i]
		if a.Name != b.Name {
			d.Names = append(d.Names, NamePair{Minor: a.Name, Other: b.Name})
			rename = append(rename, b.Name, a.Name)
			if a.Hash != "" && b.Hash != "" {
				rename = append(rename, b.Hash, a.Hash)
			}
		}
	}
	r := strings.NewReplacer(rename...)
	if a, b := summary(res), summary(o); a != b {
		d.Outcome = b
	}
	for i := 0; i < len(res.Steps) || i < len(o.Steps); i++ {
		var a, b []string
		if i < len(res.Steps) {
			a = strings.Split(res.Steps[i].Text, "\n")
		}
		if i < len(o.Steps) {
			b = strings.Split(r.Replace(o.Steps[i].Text), "\n")
		}
		onlyA, onlyB := minus(a, b), minus(b, a)
		if len(onlyA) == 0 && len(onlyB) == 0 {
			continue
		}
		d.Steps++
		if len(d.Lines) < maxLineDiffs {
			d.Lines = append(d.Lines, LineDiff{Step: i, Minor: onlyA, Other: onlyB})
		}
	}
	return d
}

func summary(r Result) string {
	last := r.Steps[len(r.Steps)-1]
	return fmt.Sprintf("%s after %d syncs (%gs)", r.Outcome, len(r.Steps), last.Elapsed)
}

// minus returns the lines of a that b does not have, in a's order (each
// line of b matches once).
func minus(a, b []string) []string {
	have := map[string]int{}
	for _, l := range b {
		have[l]++
	}
	var out []string
	for _, l := range a {
		if have[l] > 0 {
			have[l]--
			continue
		}
		out = append(out, strings.TrimSpace(l))
	}
	return out
}
