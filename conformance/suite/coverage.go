package suite

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/conformance/upstream"
)

// Cell is one outcome of a sync for the coverage table: the branch, a kind
// of write the plan makes, a reason of an event it records, and a way the
// sync ends or a write of it is answered. A sync reaches one cell for each
// combination of its kinds of write, its event reasons and its endings ("-"
// where it has none).
type Cell struct {
	Branch deploysync.Branch
	// Write is create, update, adopt, release, delete, status or
	// deployment (an update of the Deployment itself).
	Write string
	// Event is an event's reason.
	Event string
	// End is collision (a hash collision fails the sync), exists (the
	// create found the name taken by the Deployment's own ReplicaSet),
	// conflict (upstream sent a second write based on a stale version, which
	// a real apiserver answers with 409), requeue-rate-limited or
	// requeue-after.
	End string
}

// Cells returns the cells one sync reaches, from our plan and upstream's
// outcome of the same state (the two agree once compared).
func Cells(plan deploysync.Plan, out upstream.Outcome) []Cell {
	writes, events, ends := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, a := range plan.Actions {
		switch a := a.(type) {
		case *action.CreateReplicaSet:
			writes["create"] = true
		case *action.UpdateReplicaSet:
			writes["update"] = true
		case *action.AdoptReplicaSet:
			writes["adopt"] = true
		case *action.ReleaseReplicaSet:
			writes["release"] = true
		case *action.DeleteReplicaSet:
			writes["delete"] = true
		case *action.UpdateDeploymentStatus:
			writes["status"] = true
		case *action.UpdateDeployment:
			writes["deployment"] = true
		case *action.Event:
			events[a.Reason] = true
		}
	}
	var hc *deploysync.HashCollisionError
	if errors.As(plan.Err, &hc) {
		ends["collision"] = true
	}
	for _, line := range out.Actions {
		switch {
		case strings.HasPrefix(line, "create ") && strings.HasSuffix(line, ": already exists") && plan.Err == nil:
			ends["exists"] = true
		case strings.Contains(line, " (stale): "):
			ends["conflict"] = true
		}
	}
	if plan.Requeue {
		ends["requeue-rate-limited"] = true
	}
	if plan.RequeueAfter > 0 {
		ends["requeue-after"] = true
	}
	var cells []Cell
	for _, w := range keysOrDash(writes) {
		for _, e := range keysOrDash(events) {
			for _, x := range keysOrDash(ends) {
				cells = append(cells, Cell{Branch: plan.Branch, Write: w, Event: e, End: x})
			}
		}
	}
	return cells
}

func keysOrDash(m map[string]bool) []string {
	if len(m) == 0 {
		return []string{"-"}
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Coverage counts the syncs that reached each cell.
type Coverage map[Cell]int

// Add counts one sync's cells.
func (c Coverage) Add(cells []Cell) {
	for _, x := range cells {
		c[x]++
	}
}

// Missing returns the cells of want that c never reached, sorted.
func (c Coverage) Missing(want Coverage) []Cell {
	var out []Cell
	for x := range want {
		if c[x] == 0 {
			out = append(out, x)
		}
	}
	sortCells(out)
	return out
}

// Table renders the coverage as aligned columns, one cell a line, with the
// count of syncs and, if want is given, whether the scenario suite reaches
// the cell too.
func (c Coverage) Table(want Coverage) string {
	cells := make([]Cell, 0, len(c))
	for x := range c {
		cells = append(cells, x)
	}
	for x := range want {
		if c[x] == 0 {
			cells = append(cells, x)
		}
	}
	sortCells(cells)
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "branch\twrite\tevent\tend\tstates\tscenarios")
	for _, x := range cells {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%d\n", x.Branch, x.Write, x.Event, x.End, c[x], want[x])
	}
	_ = w.Flush()
	return b.String()
}

func sortCells(cells []Cell) {
	sort.Slice(cells, func(i, j int) bool {
		a, b := cells[i], cells[j]
		if a.Branch != b.Branch {
			return a.Branch < b.Branch
		}
		if a.Write != b.Write {
			return a.Write < b.Write
		}
		if a.Event != b.Event {
			return a.Event < b.Event
		}
		return a.End < b.End
	})
}
