package simulate

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
)

// String renders the table and the summary.
func (t *Timeline) String() string { return t.Table() + "\n" + t.Summary() }

// Table renders the timeline as a text table, one row per step in which
// something visible happened (a scripted change, a write other than the
// Deployment's status, a warning, a new pod count or Progressing reason);
// the first and last steps are always shown. Columns: the step, the time
// since the start, one column per ReplicaSet (named by its
// pod-template-hash, oldest first) holding spec/ready/available, the totals
// (pods not terminating, ready, available, terminating), the Progressing
// reason, and the changes and writes of the step. A legend names the
// ReplicaSets. With more than [MaxColumns] ReplicaSets, those at 0 replicas
// and without pods at every step get no column; the legend counts them
// ("+ 490 more at 0"). A step deleting more than three ReplicaSets says how
// many instead of naming each.
func (t *Timeline) Table() string {
	var b strings.Builder
	cols := t.columns()
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "STEP\tTIME")
	for _, c := range cols {
		fmt.Fprintf(tw, "\t%s", c.label)
	}
	fmt.Fprint(tw, "\tPODS\tREADY\tAVAIL\tTERM\tPROGRESSING\tCHANGES AND WRITES\n")
	var prev *Step
	var prevKey string
	for i := range t.Steps {
		s := &t.Steps[i]
		cells := make([]string, len(cols))
		for j, c := range cols {
			cells[j] = "-"
			for _, rs := range s.ReplicaSets {
				if rs.Name == c.name {
					cells[j] = fmt.Sprintf("%d/%d/%d", rs.Replicas, rs.Pods.Ready, rs.Pods.Available)
				}
			}
		}
		progressing := conditionReason(s.Conditions, appsv1.DeploymentProgressing)
		what := t.describe(prev, s)
		key := fmt.Sprint(cells, s.Totals, progressing)
		if i == 0 || i == len(t.Steps)-1 || what != "" || key != prevKey {
			fmt.Fprintf(tw, "%d\t%s", s.Index, shortDuration(s.Elapsed))
			for _, c := range cells {
				fmt.Fprintf(tw, "\t%s", c)
			}
			fmt.Fprintf(tw, "\t%d\t%d\t%d\t%d\t%s\t%s\n", s.Totals.Pods, s.Totals.Ready, s.Totals.Available, s.Totals.Terminating, progressing, what)
		}
		prev, prevKey = s, key
	}
	_ = tw.Flush()
	b.WriteString("ReplicaSet columns: spec/ready/available after each step's sync")
	for _, c := range cols {
		fmt.Fprintf(&b, "\n  %s = %s, revision %s, %s", c.label, c.name, c.revisions, c.images)
	}
	if folded := len(t.allColumns()) - len(cols); folded > 0 {
		fmt.Fprintf(&b, "\n  + %d more at 0: ReplicaSets with no replicas and no pods at every step", folded)
	}
	b.WriteString("\n")
	return b.String()
}

// MaxColumns is the number of ReplicaSets above which [Timeline.Table]
// folds the ReplicaSets that stay at 0 (see [Timeline.Active]).
const MaxColumns = 8

type column struct {
	label, name, revisions, images string
}

// Active returns the names of the ReplicaSets that the table shows, oldest
// first: all of the run's ReplicaSets if there are at most [MaxColumns];
// otherwise those that had replicas or pods at some step.
func (t *Timeline) Active() []string {
	var out []string
	for _, c := range t.columns() {
		out = append(out, c.name)
	}
	return out
}

// columns lists the ReplicaSets of the table, oldest first: every
// ReplicaSet of the run, or, above MaxColumns, the active ones.
func (t *Timeline) columns() []column {
	all := t.allColumns()
	if len(all) <= MaxColumns {
		return all
	}
	active := map[string]bool{}
	for _, s := range t.Steps {
		for _, rs := range s.ReplicaSets {
			if rs.Replicas > 0 || rs.New || rs.Pods != (Counts{}) {
				active[rs.Name] = true
			}
		}
	}
	var out []column
	for _, c := range all {
		if active[c.name] {
			out = append(out, c)
		}
	}
	return out
}

// allColumns lists every ReplicaSet of the run, oldest first.
func (t *Timeline) allColumns() []column {
	var out []column
	index := map[string]int{}
	prefix := t.deploymentName() + "-"
	for _, s := range t.Steps {
		for _, rs := range s.ReplicaSets {
			j, ok := index[rs.Name]
			if !ok {
				j = len(out)
				index[rs.Name] = j
				out = append(out, column{label: strings.TrimPrefix(rs.Name, prefix), name: rs.Name})
			}
			if rev := orNone(rs.Revision); !strings.HasSuffix(out[j].revisions, rev) {
				if out[j].revisions != "" {
					out[j].revisions += "→"
				}
				out[j].revisions += rev
			}
		}
	}
	images := t.images()
	for j := range out {
		out[j].images = images[out[j].name]
	}
	return out
}

func (t *Timeline) deploymentName() string {
	if i := strings.LastIndexByte(t.Deployment, '/'); i >= 0 {
		return t.Deployment[i+1:]
	}
	return t.Deployment
}

// images returns each ReplicaSet's container images, from the final state
// or the create actions.
func (t *Timeline) images() map[string]string {
	out := map[string]string{}
	add := func(rs *appsv1.ReplicaSet) {
		var imgs []string
		for _, c := range rs.Spec.Template.Spec.Containers {
			imgs = append(imgs, c.Image)
		}
		out[rs.Name] = strings.Join(imgs, ",")
	}
	for _, s := range t.Steps {
		for _, a := range s.Actions {
			if c, ok := a.(*action.CreateReplicaSet); ok {
				add(c.ReplicaSet)
			}
		}
	}
	for _, rs := range t.Final.ReplicaSets {
		add(rs)
	}
	return out
}

// describe summarises a step's scripted changes and writes (status writes
// and Normal events left out: the other columns show them).
func (t *Timeline) describe(prev, s *Step) string {
	var parts []string
	for _, c := range s.Changes {
		parts = append(parts, "user: "+c)
	}
	prefix := t.deploymentName() + "-"
	label := func(name string) string { return strings.TrimPrefix(name, prefix) }
	before := t.initial
	if prev != nil {
		before = map[string]int32{}
		for _, rs := range prev.ReplicaSets {
			before[rs.Name] = rs.Replicas
		}
	}
	deletes := 0
	for _, a := range s.Actions {
		switch a := a.(type) {
		case *action.CreateReplicaSet:
			parts = append(parts, fmt.Sprintf("create %s=%d", label(a.ReplicaSet.Name), *a.ReplicaSet.Spec.Replicas))
		case *action.UpdateReplicaSet:
			n := *a.ReplicaSet.Spec.Replicas
			if was, ok := before[a.ReplicaSet.Name]; ok && was != n {
				parts = append(parts, fmt.Sprintf("scale %s %d→%d", label(a.ReplicaSet.Name), was, n))
			} else {
				parts = append(parts, "update "+label(a.ReplicaSet.Name))
			}
		case *action.DeleteReplicaSet:
			deletes++
			if deletes <= 3 {
				parts = append(parts, "delete "+label(a.Name))
			}
		case *action.AdoptReplicaSet:
			parts = append(parts, "adopt "+label(a.Name))
		case *action.ReleaseReplicaSet:
			parts = append(parts, "release "+label(a.Name))
		case *action.UpdateDeployment:
			parts = append(parts, "update deployment")
		case *action.Event:
			if a.Type == corev1.EventTypeWarning {
				parts = append(parts, "warning "+a.Reason)
			}
		}
	}
	if deletes > 3 {
		parts = append(parts, fmt.Sprintf("and %d more deletes", deletes-3))
	}
	switch {
	case s.Err != nil && prev != nil && prev.Err != nil && prev.Err.Error() == s.Err.Error():
		// The same failure again: the first one's row has its words.
		parts = append(parts, fmt.Sprintf("fails again (%d in a row)", s.Failures))
	case s.Err != nil:
		parts = append(parts, "error: "+s.Err.Error())
	}
	if s.Err != nil && s.Dropped {
		parts = append(parts, "dropped after 15 retries")
	} else if s.Err != nil && s.RetryAfter > 0 {
		parts = append(parts, "retry after "+shortDuration(s.RetryAfter))
	}
	return strings.Join(parts, ", ")
}

// Summary renders the outcome, the syncs and simulated duration, the peak
// pods, the minimum of available pods and the invariants. Bounds are those
// of the Deployment's spec the pods were sized for (the previous step's).
func (t *Timeline) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "outcome:        %s after %s (%d syncs)\n", t.Outcome, shortDuration(t.Duration()), t.Syncs())
	peak, peakStep, withTerm := int32(-1), 0, int32(0)
	for _, s := range t.Steps {
		if s.Totals.Pods > peak {
			peak, peakStep = s.Totals.Pods, s.Index
		}
		withTerm = max(withTerm, s.Totals.Pods+s.Totals.Terminating)
	}
	bound := t.sizedFor(peakStep)
	fmt.Fprintf(&b, "peak pods:      %d at step %d (replicas %d + maxSurge %d = %d), %d with terminating pods\n",
		peak, peakStep, bound.Replicas, bound.MaxSurge, bound.Replicas+bound.MaxSurge, withTerm)
	if avail, step := t.MinAvailable(); step >= 0 {
		bound := t.sizedFor(step)
		if strings.HasPrefix(t.Strategy, "Recreate") {
			fmt.Fprintf(&b, "min available:  %d at step %d (Recreate stops every old pod first)\n", avail, step)
		} else {
			fmt.Fprintf(&b, "min available:  %d at step %d (replicas %d - maxUnavailable %d = %d)\n",
				avail, step, bound.Replicas, bound.MaxUnavailable, bound.Replicas-bound.MaxUnavailable)
		}
	}
	if len(t.InputBroken) > 0 {
		what := "1 invariant"
		if n := len(t.InputBroken); n != 1 {
			what = fmt.Sprintf("%d invariants", n)
		}
		fmt.Fprintf(&b, "input:          already breaks %s (not the controller's doing; each check waits until the state satisfies it)\n", what)
		for _, v := range t.InputBroken {
			fmt.Fprintf(&b, "  %s: %s\n", v.Invariant, v.Detail)
		}
	}
	if len(t.Violations) == 0 {
		b.WriteString("invariants:     all held\n")
	} else {
		fmt.Fprintf(&b, "invariants:     %d violations\n", len(t.Violations))
		for _, v := range t.Violations {
			fmt.Fprintf(&b, "  VIOLATED %s\n", v.Error())
		}
	}
	return b.String()
}

// sizedFor returns the step whose sync sized the pods counted at step i.
func (t *Timeline) sizedFor(i int) *Step {
	return &t.Steps[max(i-1, 0)]
}

// Transcript renders everything: the table, then every step with the pods
// the ReplicaSet controller deleted before it (see [Step.Deleted]; the
// first three per ReplicaSet named with their rank, the rest counted), its
// changes, each action with its reason, the requeue and the conditions, then
// the summary. A run of rate-limited requeues that change and write nothing
// (a controller looping on a passed progress deadline) shows its first and
// last step, and one line for those between.
func (t *Timeline) Transcript() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Deployment %s, %s, start %s\n\n", t.Deployment, t.Strategy, t.Start.UTC().Format(time.RFC3339))
	b.WriteString(t.Table())
	for i := 0; i < len(t.Steps); i++ {
		s := &t.Steps[i]
		t.writeStep(&b, s, true)
		j := i
		if key, ok := t.requeueKey(s); ok {
			for j+1 < len(t.Steps) {
				if k, ok := t.requeueKey(&t.Steps[j+1]); !ok || k != key {
					break
				}
				j++
			}
		}
		if j-i < 2 {
			continue
		}
		first, last := &t.Steps[i+1], &t.Steps[j-1]
		fmt.Fprintf(&b, "\nsteps %d to %d +%s to +%s: %d syncs as step %d, each requeued by the workqueue's rate limiter\n",
			first.Index, last.Index, shortDuration(first.Elapsed), shortDuration(last.Elapsed), j-i-1, s.Index)
		t.writeStep(&b, &t.Steps[j], true)
		i = j
	}
	b.WriteString("\n")
	b.WriteString(t.Summary())
	return b.String()
}

// requeueKey returns what a rate-limited requeue step that changes and
// writes nothing shows without its header and the requeue's reason (which
// may say a later time), and false for any other step: two steps with the
// same key do the same.
func (t *Timeline) requeueKey(s *Step) (string, bool) {
	if !s.Requeue || len(s.Actions)+len(s.Changes)+len(s.Deleted)+len(s.Refused)+len(s.Admitted) > 0 {
		return "", false
	}
	var b strings.Builder
	t.writeStep(&b, s, false)
	return b.String(), true
}

// writeStep writes one step of the transcript; without header, the step's
// line and the requeue's reason are left out.
func (t *Timeline) writeStep(b *strings.Builder, s *Step, header bool) {
	if header {
		fmt.Fprintf(b, "\nstep %d +%s branch %s\n", s.Index, shortDuration(s.Elapsed), s.Branch)
	} else {
		fmt.Fprintf(b, "branch %s\n", s.Branch)
	}
	writeDeleted(b, s.Deleted)
	writeRefused(b, s.Refused)
	writeAdmitted(b, s.Admitted)
	for _, c := range s.Changes {
		fmt.Fprintf(b, "  user: %s\n", c)
	}
	for _, a := range s.Actions {
		fmt.Fprintf(b, "  - %s\n", a.String())
	}
	if len(s.Why) > 0 {
		fmt.Fprintf(b, "  waits: %s\n", s.Why)
	}
	why := ""
	if s.RequeueWhy != "" && header {
		why = ": " + s.RequeueWhy
	}
	switch {
	case s.Err != nil && s.Dropped:
		fmt.Fprintf(b, "  then fail: %v; failure %d in a row: the controller drops the Deployment after 15 retries and syncs it again only when it changes\n", s.Err, s.Failures)
	case s.Err != nil && s.Failures > 0:
		fmt.Fprintf(b, "  then fail: %v; failure %d in a row, retried after %s (the workqueue's backoff)\n", s.Err, s.Failures, s.RetryAfter)
	case s.Err != nil:
		fmt.Fprintf(b, "  then fail: %v\n", s.Err)
	case s.Requeue:
		b.WriteString("  then requeue now (rate limited)" + why + "\n")
	case s.RequeueAfter > 0:
		fmt.Fprintf(b, "  then requeue after %s%s\n", s.RequeueAfter, why)
	}
	for _, c := range s.Conditions {
		fmt.Fprintf(b, "  condition %s=%s %s (updated %s)\n", c.Type, c.Status, c.Reason, t.when(c.LastUpdateTime.Time))
	}
}

func conditionReason(conds []appsv1.DeploymentCondition, typ appsv1.DeploymentConditionType) string {
	for _, c := range conds {
		if c.Type == typ {
			return c.Reason
		}
	}
	return "-"
}

// when prints a time as its offset from the start (see offset).
func (t *Timeline) when(at time.Time) string { return offset(at, t.Start) }

// offset prints a time as its offset from start ("+12s", "-2s"), but a
// time more than a day before the start (a condition the input carried from
// long ago) as itself, in RFC 3339: an offset of years reads as nonsense.
func offset(at, start time.Time) string {
	d := at.Sub(start)
	switch {
	case d >= 0:
		return "+" + shortDuration(d)
	case d >= -24*time.Hour:
		return "-" + shortDuration(-d)
	}
	return at.UTC().Format(time.RFC3339) + ", before the start"
}

// shownDeletions is how many pods of one ReplicaSet a transcript line
// names; the rest are counted.
const shownDeletions = 3

// writeDeleted writes a step's deletions, one line per ReplicaSet: how many
// went, the first few in order with their rank, and how many more.
func writeDeleted(b *strings.Builder, ds []Deletion) {
	for i := 0; i < len(ds); {
		j := i
		for j < len(ds) && ds[j].ReplicaSet == ds[i].ReplicaSet {
			j++
		}
		fmt.Fprintf(b, "  rs controller deletes %d of %s:", j-i, ds[i].ReplicaSet)
		for k, d := range ds[i:min(j, i+shownDeletions)] {
			sep := " "
			if k > 0 {
				sep = "; "
			}
			fmt.Fprintf(b, "%s#%d %s (%s%s%s)", sep, d.Position, d.Pod, d.Why, tiedText(d.Tied), unsettledText(d.Unsettled))
		}
		if more := j - i - shownDeletions; more > 0 {
			fmt.Fprintf(b, "; %d more", more)
			if n := countTied(ds[i+shownDeletions : j]); n > 0 {
				fmt.Fprintf(b, " (%d tied with kept pods)", n)
			}
			if n := countUnsettled(ds[i+shownDeletions : j]); n > 0 {
				fmt.Fprintf(b, " (%d not ranked before every kept pod)", n)
			}
		}
		switch tied, unsettled := countTied(ds[i:j]) > 0, countUnsettled(ds[i:j]) > 0; {
		case tied && unsettled:
			b.WriteString("; among tied pods, and pods upstream's comparison does not order, a real controller deletes those its cache lists first")
		case tied:
			b.WriteString("; among tied pods a real controller deletes those its cache lists first")
		case unsettled:
			b.WriteString("; among pods upstream's comparison does not order (one bucket, by UID or by later rules) a real controller deletes those its cache lists first")
		}
		b.WriteString("\n")
		i = j
	}
}

// writeRefused writes a step's refusals (see [WithRefusedImage]), one line
// per ReplicaSet.
func writeRefused(b *strings.Builder, rs []Refusal) {
	for _, r := range rs {
		if r.Created > 0 {
			fmt.Fprintf(b, "  rs controller creates %d of the %d missing pods of %s, the quota's room; the rest refused (%s); sets ReplicaFailure FailedCreate, retries with backoff\n",
				r.Created, r.Created+r.Missing, r.ReplicaSet, r.Message)
			continue
		}
		skips := ""
		if r.Missing > 1 {
			skips = fmt.Sprintf(", skips the other %d", r.Missing-1)
		}
		fmt.Fprintf(b, "  rs controller creates 1 of the %d missing pods of %s (a slow-start batch of one), refused (%s)%s; sets ReplicaFailure FailedCreate, retries with backoff\n",
			r.Missing, r.ReplicaSet, r.Message, skips)
	}
}

// writeAdmitted writes a step's admissions after a refusal that ended (see
// [WithRefusedImageUntil], [WithPodQuota]), one line per ReplicaSet.
func writeAdmitted(b *strings.Builder, as []Admission) {
	for _, a := range as {
		pods := "pods"
		if a.Created == 1 {
			pods = "pod"
		}
		rest := ""
		if a.Refused > 0 {
			rest = fmt.Sprintf("; the quota refuses the other %d", a.Refused)
		}
		fmt.Fprintf(b, "  rs controller creates %d %s of %s: its retry at +%v, after %d failed syncs, the first since the refusal ended at +%v%s\n",
			a.Created, pods, a.ReplicaSet, a.At, a.Failures, a.Until, rest)
	}
}

// tiedText marks a deleted pod that ties with n kept pods (see
// [Deletion.Tied]).
func tiedText(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; tied with %d kept", n)
}

// unsettledText marks a deleted pod that n kept pods are not ranked after
// (see [Deletion.Unsettled]).
func unsettledText(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d kept not ranked after it", n)
}

// countTied is how many of ds tie with kept pods.
func countTied(ds []Deletion) int { return countWith(ds, func(d *Deletion) int { return d.Tied }) }

// countUnsettled is how many of ds some kept pod is not ranked after.
func countUnsettled(ds []Deletion) int {
	return countWith(ds, func(d *Deletion) int { return d.Unsettled })
}

// countWith is how many of ds have a positive count by.
func countWith(ds []Deletion, by func(*Deletion) int) int {
	n := 0
	for i := range ds {
		if by(&ds[i]) > 0 {
			n++
		}
	}
	return n
}

// requeueWhy gives the reason of a plan's requeue, with its numbers. Sync
// asks for one only to look at the progress deadline again: the deadline
// is the Progressing condition's lastUpdateTime plus
// spec.progressDeadlineSeconds; less than a second away, the requeue is
// immediate (Requeue), otherwise one second past it (RequeueAfter). d is
// the Deployment after the plan (a plan that requeues writes no new
// Progressing condition); "" when the plan does not requeue or the numbers
// do not give its requeue.
func requeueWhy(d *appsv1.Deployment, p deploysync.Plan, start, now time.Time) string {
	if p.Err != nil || !p.Requeue && p.RequeueAfter <= 0 || d.Spec.ProgressDeadlineSeconds == nil {
		return ""
	}
	c := deployutil.GetCondition(d.Status, appsv1.DeploymentProgressing)
	if c == nil || c.Reason == deployutil.ReasonProgressDeadlineExceeded {
		return ""
	}
	secs := *d.Spec.ProgressDeadlineSeconds
	deadline := c.LastUpdateTime.Add(time.Duration(secs) * time.Second)
	sum := fmt.Sprintf("Progressing updated %s + progressDeadlineSeconds %d = %s", offset(c.LastUpdateTime.Time, start), secs, offset(deadline, start))
	switch left := deadline.Sub(now); {
	case p.Requeue && left < 0 && c.Reason == deployutil.ReasonNewReplicaSetAvailable:
		return fmt.Sprintf("the progress deadline has passed (%s, %s ago), and Progressing %s never times out", sum, shortDuration(-left), c.Reason)
	case p.Requeue && left < 0:
		return fmt.Sprintf("the progress deadline has passed (%s, %s ago)", sum, shortDuration(-left))
	case p.Requeue && left < time.Second:
		return fmt.Sprintf("the progress deadline is less than a second away (%s, in %s)", sum, left)
	case !p.Requeue && p.RequeueAfter == left+time.Second:
		return fmt.Sprintf("one second past the progress deadline, to check it (%s)", sum)
	}
	return ""
}

// shortDuration prints a duration without trailing zero units ("1m30s",
// "45s", "0s").
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
