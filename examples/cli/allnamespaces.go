package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/deploysync/deploysync/diagnose"
)

// refuseAllNamespaces is the usage error of -A on a command that needs one
// Deployment.
func refuseAllNamespaces(cmd *cobra.Command) error {
	why := map[string]string{
		"plan":     "a plan is one Deployment's next sync",
		"history":  "a history is one Deployment's revisions",
		"simulate": "a simulation rolls out one Deployment",
	}[cmd.Name()]
	if why == "" {
		why = "it reads one Deployment"
	}
	return fmt.Errorf("-A works with status and diagnose only: %s needs one Deployment (%s); name it with deploy/NAME -n NAMESPACE, or -f FILE", cmd.Name(), why)
}

// ReadClusterAll reads every Deployment of every namespace of a cluster,
// with the ReplicaSets of its namespace and the pods its selector matches
// (one list of each kind for the whole cluster), and makes one Manifest per
// Deployment as [ReadCluster] makes it, ordered by namespace and name.
func ReadClusterAll(ctx context.Context, c kubernetes.Interface, source, version string) ([]*Manifest, error) {
	ds, err := c.AppsV1().Deployments(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: listing the Deployments of every namespace: %w", source, err)
	}
	rss, err := c.AppsV1().ReplicaSets(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: listing the ReplicaSets of every namespace: %w", source, err)
	}
	pods, err := c.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: listing the pods of every namespace: %w", source, err)
	}
	items := ds.Items
	sort.Slice(items, func(i, j int) bool {
		if items[i].Namespace != items[j].Namespace {
			return items[i].Namespace < items[j].Namespace
		}
		return items[i].Name < items[j].Name
	})
	var out []*Manifest
	for i := range items {
		d := items[i].DeepCopy()
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil {
			return nil, fmt.Errorf("%s: Deployment %s/%s: spec.selector: %w", source, d.Namespace, d.Name, err)
		}
		var nsRSs []appsv1.ReplicaSet
		for _, rs := range rss.Items {
			if rs.Namespace == d.Namespace {
				nsRSs = append(nsRSs, *rs.DeepCopy())
			}
		}
		var selected []corev1.Pod
		for _, p := range pods.Items {
			if p.Namespace == d.Namespace && sel.Matches(labels.Set(p.Labels)) {
				selected = append(selected, *p.DeepCopy())
			}
		}
		objs := []object{{obj: d, source: "deployment " + d.Name}}
		objs = append(objs, listed("replicasets", nsRSs, func(rs *appsv1.ReplicaSet) runtime.Object { return rs })...)
		objs = append(objs, listed("pods", selected, func(p *corev1.Pod) runtime.Object { return p })...)
		m := newManifest(source, version)
		if err := m.pick(objs, d.Namespace, d.Name); err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		m.Gaps = findGaps(m.Deployment, m.ReplicaSets)
		out = append(out, m)
	}
	return out, nil
}

// ReadManifestAll is [ReadManifest] for every Deployment of the input: one
// Manifest each, ordered by namespace and name (a name repeated in a
// namespace in stream order, picked as NAME#N), each read as ReadManifest
// reads it for that Deployment. version is the minor whose apiserver
// defaults what never passed one.
func ReadManifestAll(r io.Reader, name, version string) ([]*Manifest, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	objs, _, err := decodeAll(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	type key struct {
		ns, name string
		nth      int
	}
	var keys []key
	seen := map[[2]string]int{}
	for _, o := range objs {
		if d, ok := o.obj.(*appsv1.Deployment); ok {
			k := [2]string{d.Namespace, d.Name}
			seen[k]++
			keys = append(keys, key{d.Namespace, d.Name, seen[k]})
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no Deployment in the file", name)
	}
	sort.SliceStable(keys, func(i, j int) bool {
		if keys[i].ns != keys[j].ns {
			return keys[i].ns < keys[j].ns
		}
		return keys[i].name < keys[j].name
	})
	var out []*Manifest
	for _, k := range keys {
		pick := k.name
		if seen[[2]string{k.ns, k.name}] > 1 {
			pick += "#" + strconv.Itoa(k.nth)
		}
		m, err := ReadManifest(bytes.NewReader(b), name, ReadOptions{Namespace: k.ns, Deployment: pick, KubernetesVersion: version})
		if err != nil {
			return nil, err
		}
		if pick != k.name {
			m.label = pick
		}
		out = append(out, m)
	}
	return out, nil
}

// loadAll reads every Deployment for -A: of the file, else of the cluster.
func (g *globals) loadAll(cmd *cobra.Command, args []string) ([]*Manifest, error) {
	switch {
	case len(args) > 0:
		return nil, fmt.Errorf("-A reads every Deployment: drop %s, or drop -A", args[0])
	case g.namespace != "":
		return nil, fmt.Errorf("-A reads every namespace: drop -n %s, or drop -A", g.namespace)
	case g.deployment != "":
		return nil, fmt.Errorf("-A reads every Deployment: drop --deployment %s, or drop -A", g.deployment)
	}
	if _, err := g.syncFixes(); err != nil {
		return nil, err
	}
	if err := g.checkVersion(); err != nil {
		return nil, err
	}
	var ms []*Manifest
	var err error
	switch g.file {
	case "":
		client, source, _, cerr := g.cluster()
		if cerr != nil {
			return nil, cerr
		}
		ms, err = ReadClusterAll(cmd.Context(), client, source, g.version)
	case "-":
		ms, err = ReadManifestAll(cmd.InOrStdin(), "stdin", g.version)
	default:
		f, oerr := os.Open(g.file)
		if oerr != nil {
			return nil, oerr
		}
		defer f.Close()
		ms, err = ReadManifestAll(f, g.file, g.version)
	}
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		printNotes(cmd.ErrOrStderr(), m)
	}
	return ms, nil
}

// syncTime is --now, or the clock without it.
func (g *globals) syncTime() (metav1.Time, error) {
	if g.now == "" {
		return metav1.NewTime(g.clock().UTC()), nil
	}
	t, err := time.Parse(time.RFC3339, g.now)
	if err != nil {
		return metav1.Time{}, fmt.Errorf("--now: %w", err)
	}
	return metav1.NewTime(t.UTC()), nil
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// statusAll is status -A: one row per Deployment with the rule's verdict.
func (g *globals) statusAll(cmd *cobra.Command, args []string, f statusFlags) error {
	ms, err := g.loadAll(cmd, args)
	if err != nil {
		return err
	}
	var rows []jsonVerdict
	var failed, partial, waiting []string
	for _, m := range ms {
		name := m.key()
		if p := m.Partial(); p != "" && !ReadsOnlyDeployment(f.tool) {
			rows = append(rows, jsonVerdict{Deployment: name, Rule: f.tool, Verdict: "no verdict", Message: firstLine(p)})
			partial = append(partial, name)
			continue
		}
		v := RuleVerdict(f.tool, m)
		rows = append(rows, verdictJSON(m, v))
		switch {
		case v.Failed:
			failed = append(failed, name)
		case !v.Done:
			waiting = append(waiting, name)
		}
	}
	w := cmd.OutOrStdout()
	if f.output != "text" {
		if err := writeStructured(w, f.output, rows); err != nil {
			return err
		}
	} else {
		var table bytes.Buffer
		tw := tabwriter.NewWriter(&table, 0, 8, 2, ' ', 0)
		fmt.Fprintf(tw, "NAMESPACE\tNAME\t%s\tMESSAGE\n", strings.ToUpper(string(f.tool)))
		for i, r := range rows {
			word := r.Verdict
			if r.Status != "" {
				word += " (" + r.Status + ")"
			}
			msg := firstLine(r.Message)
			if msg == "" && len(r.Reasons) > 0 {
				msg = r.Reasons[0]
			}
			if msg == "" {
				msg = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ms[i].Deployment.Namespace, ms[i].name(), word, msg)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if _, err := io.WriteString(w, fitColumn(table.String())); err != nil {
			return err
		}
	}
	switch {
	case len(failed) > 0 && f.compat:
		return &ExitError{Code: 1, Err: fmt.Errorf("past the progress deadline: %s", strings.Join(failed, ", "))}
	case len(failed) > 0:
		return &ExitError{Code: ExitDeadlineExceeded, Err: fmt.Errorf("rule %s: failed: %s (exit code %d)", f.tool, strings.Join(failed, ", "), ExitDeadlineExceeded)}
	case len(partial) > 0:
		return &ExitError{Code: ExitPartialInput, Err: fmt.Errorf("no verdict (the input lacks their ReplicaSets): %s (exit code %d)", strings.Join(partial, ", "), ExitPartialInput)}
	case len(waiting) > 0 && !f.compat:
		return &ExitError{Code: ExitNotDone, Err: fmt.Errorf("rule %s: not done yet: %s (exit code %d)", f.tool, strings.Join(waiting, ", "), ExitNotDone)}
	}
	return nil
}

// jsonDiagnosis is one Deployment's diagnosis as data.
type jsonDiagnosis struct {
	Deployment string           `json:"deployment"`
	Causes     []diagnose.Cause `json:"causes"`
	// Error says why there is no diagnosis: the input lacks ReplicaSets
	// the Deployment refers to, or Sync refuses it.
	Error string `json:"error,omitempty"`
}

// diagnoseAll is diagnose -A: one row per Deployment with its number of
// causes and the first.
func (g *globals) diagnoseAll(cmd *cobra.Command, args []string, output string) error {
	now, err := g.syncTime()
	if err != nil {
		return err
	}
	ms, err := g.loadAll(cmd, args)
	if err != nil {
		return err
	}
	var rows []jsonDiagnosis
	var partial, refused []string
	for _, m := range ms {
		row := jsonDiagnosis{Deployment: m.key(), Causes: []diagnose.Cause{}}
		if p := m.Partial(); p != "" {
			row.Error = "no diagnosis: " + firstLine(p)
			partial = append(partial, row.Deployment)
		} else if causes, err := diagnose.Rollout(m.State(now), g.syncOptions()...); err != nil {
			row.Error = m.Explain(err).Error()
			refused = append(refused, row.Deployment)
		} else if causes != nil {
			row.Causes = causes
		}
		rows = append(rows, row)
	}
	w := cmd.OutOrStdout()
	if output != "text" {
		if err := writeStructured(w, output, rows); err != nil {
			return err
		}
	} else {
		var table bytes.Buffer
		tw := tabwriter.NewWriter(&table, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "NAMESPACE\tNAME\tCAUSES\tFIRST CAUSE")
		for i, r := range rows {
			n, first := fmt.Sprint(len(r.Causes)), "rolled out, nothing holds it back"
			switch {
			case r.Error != "":
				n, first = "-", r.Error
			case len(r.Causes) > 0:
				first = string(r.Causes[0].Kind) + ": " + r.Causes[0].Message()
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ms[i].Deployment.Namespace, ms[i].name(), n, first)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if _, err := io.WriteString(w, fitColumn(table.String())); err != nil {
			return err
		}
	}
	switch {
	case len(refused) > 0:
		return &ExitError{Code: 1, Err: errors.New("no diagnosis, refused input: " + strings.Join(refused, ", "))}
	case len(partial) > 0:
		return &ExitError{Code: ExitPartialInput, Err: fmt.Errorf("no diagnosis (the input lacks their ReplicaSets): %s (exit code %d)", strings.Join(partial, ", "), ExitPartialInput)}
	}
	return nil
}
