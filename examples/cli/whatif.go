package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/defaults"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/simulate"
)

// The exit codes of diff besides 0 (the manifest starts no rollout) and 1
// (an error).
const (
	// ExitRollsNew: applying the manifest starts a rollout to a new
	// ReplicaSet.
	ExitRollsNew = 10
	// ExitRollsBack: applying the manifest starts a rollout back to an
	// existing ReplicaSet (an earlier revision's template).
	ExitRollsBack = 11
)

// The verdicts of diff: what applying the manifest does.
const (
	// VerdictNothing: the Deployment after defaulting equals the live one
	// in everything the controller reads.
	VerdictNothing = "nothing changes"
	// VerdictNoRollout: the spec changes outside the pod template (a
	// scaling event, the strategy, paused, ...): no new ReplicaSet.
	VerdictNoRollout = "no rollout"
	// VerdictRolls: the template changes: a new ReplicaSet.
	VerdictRolls = "rolls out a new ReplicaSet"
	// VerdictRollsBack: the template is an existing ReplicaSet's: it is
	// scaled back up, no new name.
	VerdictRollsBack = "rolls back to an existing ReplicaSet"
	// VerdictCreates: the cluster has no such Deployment: its first
	// ReplicaSet.
	VerdictCreates = "creates the Deployment"
	// VerdictHeld: the Deployment stays (or becomes) paused and its pod
	// template is not the one its pods run: the controller creates or
	// scales up no ReplicaSet until it is resumed (ResumesTo names the
	// ReplicaSet it then rolls to).
	VerdictHeld = "no rollout while paused"
)

// WhatIf is diff's answer: what applying a manifest to a running
// Deployment does, before anything changes.
type WhatIf struct {
	Deployment string `json:"deployment"`
	// Verdict is one of the Verdict* constants; Rolls says whether pods
	// are replaced.
	Verdict string `json:"verdict"`
	Rolls   bool   `json:"rolls"`
	// Why says it in a sentence.
	Why string `json:"why"`
	// DefaultedBy says who filled the manifest's defaults: the apiserver
	// (a server-side dry run) or the library's defaulting of a minor.
	DefaultedBy string `json:"defaultedBy"`
	// TemplateChanges are the pod template's fields that differ: they
	// start the rollout.
	TemplateChanges []jsonChange `json:"templateChanges,omitempty"`
	// OtherChanges are the spec's fields outside the template that the
	// controller reacts to.
	OtherChanges []jsonChange `json:"otherChanges,omitempty"`
	// NewReplicaSet is the name of the ReplicaSet a rollout creates.
	NewReplicaSet string `json:"newReplicaSet,omitempty"`
	// ReturnsTo is the existing ReplicaSet a rollout scales back up.
	ReturnsTo *jsonRevisionRef `json:"returnsTo,omitempty"`
	// ResumesTo, when the verdict is VerdictHeld, is the ReplicaSet the
	// held rollout goes to once the Deployment is resumed: a new one's
	// name (not created while paused) or an existing one's.
	ResumesTo string `json:"resumesTo,omitempty"`
	// Notes say what was assumed.
	Notes []string `json:"notes,omitempty"`
	// Evidence is what the prediction's pod timing rests on.
	Evidence jsonEvidence `json:"evidence"`
	// Prediction is the rollout simulated from the live state.
	Prediction *jsonPrediction `json:"prediction,omitempty"`
}

type jsonChange struct {
	Path string `json:"path"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Effect says what the controller does with an other change.
	Effect string `json:"effect,omitempty"`
}

type jsonRevisionRef struct {
	Name     string `json:"name"`
	Revision string `json:"revision,omitempty"`
}

// jsonEvidence is the pod timing read from the live pods.
type jsonEvidence struct {
	// PodsRead counts the Deployment's pods that are Ready, whose
	// creation-to-Ready time was read.
	PodsRead int `json:"podsRead"`
	// Percentile of those times the prediction uses, and its value.
	Percentile   int    `json:"percentile,omitempty"`
	StartToReady string `json:"startToReady"`
	// MinReadySeconds and TerminationGrace are the template's, as the
	// prediction uses them.
	MinReadySeconds  int32  `json:"minReadySeconds"`
	TerminationGrace string `json:"terminationGrace"`
	// Source says where the timing comes from.
	Source string `json:"source"`
}

type jsonPrediction struct {
	Outcome      string       `json:"outcome"`
	Duration     string       `json:"duration"`
	PeakPods     int32        `json:"peakPods"`
	MinAvailable int32        `json:"minAvailable"`
	Timeline     jsonTimeline `json:"timeline"`
}

// whatIfInput is what diff works on: the live state and the manifest
// after defaulting.
type whatIfInput struct {
	live *Manifest // nil: the cluster has no such Deployment
	// desired is the Deployment as applying the manifest leaves it
	// (defaulted, merged over the live object).
	desired     *appsv1.Deployment
	defaultedBy string
	notes       []string
}

func diffCommand(g *globals) *cobra.Command {
	var state, output string
	var percentile int
	cmd := &cobra.Command{
		Use:   "diff -f MANIFEST [--state FILE]",
		Short: "What applying a manifest would do to the running Deployment",
		Long: `What applying a manifest would do to the Deployment as it runs, before
anything changes: whether it starts a rollout and why (the pod template's
fields that differ once defaulted), or "no rollout: only spec.replicas 3 → 5,
a scaling event", or "nothing changes"; the changes outside the template the
controller reacts to; the new ReplicaSet's name or the return to an existing
revision; and the rollout step by step from the live state, with its peak
pods, lowest availability and predicted duration from this Deployment's own
pods (their times from creation to Ready).

As kubectl diff -f, it takes the manifest with -f and compares it with the
live object of the current kubeconfig context; there the manifest is
defaulted by the apiserver itself, through a server-side apply with
dryRun=All (what kubectl apply --server-side --dry-run=server sends), so
mutating admission and the cluster's own minor count. With --state FILE
(kubectl get deploy,rs,pods -o yaml) the live state is the file's and the
manifest is defaulted by the library for --kubernetes-version. It writes
nothing: reads, and dry runs.`,
		Example: `  kubectl deploysync diff -f web.yaml -n shop
  helm template ./chart | kubectl deploysync diff -f - --deployment web
  kubectl deploysync diff -f web.yaml --state live.yaml -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			if g.file == "" {
				return errors.New("diff needs the manifest to apply: -f FILE (- reads stdin)")
			}
			if percentile < 1 || percentile > 100 {
				return fmt.Errorf("--percentile %d: want 1 to 100", percentile)
			}
			if err := g.checkVersion(); err != nil {
				return err
			}
			now, err := g.syncTime()
			if err != nil {
				return err
			}
			in, err := g.whatIfInput(cmd, state)
			if err != nil {
				return err
			}
			w, err := answerWhatIf(in, now, percentile, g)
			if err != nil {
				return err
			}
			if output != "text" {
				if err := writeStructured(cmd.OutOrStdout(), output, w); err != nil {
					return err
				}
			} else if _, err := io.WriteString(cmd.OutOrStdout(), whatIfText(w)); err != nil {
				return err
			}
			return whatIfExit(w)
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "the live Deployment, its ReplicaSets and pods from a file instead of the cluster (kubectl get deploy,rs,pods -o yaml)")
	cmd.Flags().IntVar(&percentile, "percentile", 90, "the percentile of the pods' creation-to-Ready times the prediction uses")
	cmd.Flags().StringVarP(&output, "output", "o", "text", outputHelp)
	return cmd
}

// whatIfExit is diff's exit: nil when the manifest starts no rollout.
func whatIfExit(w *WhatIf) error {
	switch w.Verdict {
	case VerdictRolls, VerdictCreates:
		return &ExitError{Code: ExitRollsNew, Err: fmt.Errorf("applying the manifest to Deployment %s %s (exit code %d)", w.Deployment, w.Verdict, ExitRollsNew)}
	case VerdictRollsBack:
		return &ExitError{Code: ExitRollsBack, Err: fmt.Errorf("applying the manifest to Deployment %s %s (exit code %d)", w.Deployment, w.Verdict, ExitRollsBack)}
	}
	return nil
}

// readManifestDeployment reads the manifest to apply: the Deployment
// --deployment names (or the only one), as written, and its JSON.
func (g *globals) readManifestDeployment(cmd *cobra.Command) (*appsv1.Deployment, []byte, string, error) {
	name := g.file
	var b []byte
	var err error
	if g.file == "-" {
		name = "stdin"
		b, err = io.ReadAll(cmd.InOrStdin())
	} else {
		b, err = os.ReadFile(g.file)
	}
	if err != nil {
		return nil, nil, "", err
	}
	objs, _, err := decodeAll(b)
	if err != nil {
		return nil, nil, "", fmt.Errorf("%s: %w", name, err)
	}
	m := newManifest(name, g.version)
	var kept []object
	for _, o := range objs {
		if _, ok := o.obj.(*appsv1.Deployment); ok {
			kept = append(kept, o)
		}
	}
	picked, err := m.pickDeployment(kept, g.namespace, g.deployment)
	if err != nil {
		return nil, nil, "", fmt.Errorf("%s: %w", name, err)
	}
	d := picked.obj.(*appsv1.Deployment)
	if d.Namespace == "" {
		d.Namespace = g.namespace
	}
	if d.Namespace == "" {
		d.Namespace = "default"
	}
	return d, picked.raw, name + ", " + picked.source, nil
}

// whatIfInput reads the manifest and the live state, and defaults the
// manifest: through the apiserver on a cluster, by the library with
// --state.
func (g *globals) whatIfInput(cmd *cobra.Command, state string) (*whatIfInput, error) {
	md, raw, where, err := g.readManifestDeployment(cmd)
	if err != nil {
		return nil, err
	}
	opts := ReadOptions{Namespace: md.Namespace, Deployment: md.Name, KubernetesVersion: g.version}
	if state != "" {
		live, err := LoadManifest(state, opts)
		if err != nil {
			return nil, err
		}
		return offlineInput(live, md, where, g.version)
	}
	client, source, _, err := g.cluster()
	if err != nil {
		return nil, err
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	return liveInput(ctx, client, source, md, raw, where, opts)
}

// offlineInput merges the manifest over the live Deployment as an apply
// would and has the library default the result as the chosen minor's
// apiserver stores an update (defaults.DeploymentUpdate: the live status,
// the generation one up if the spec or the annotations changed, the
// fields of a disabled gate kept where the live template uses them).
func offlineInput(live *Manifest, md *appsv1.Deployment, where, version string) (*whatIfInput, error) {
	in := &whatIfInput{live: live, defaultedBy: "the library's defaulting of Kubernetes " + minorName(version) + " (no cluster: --state)"}
	d := md.DeepCopy()
	if d.Spec.Replicas == nil && live.Deployment.Spec.Replicas != nil {
		// An apply that never set replicas leaves the live value (an
		// autoscaler's) alone.
		d.Spec.Replicas = ptr.To(*live.Deployment.Spec.Replicas)
		in.notes = append(in.notes, fmt.Sprintf("the manifest sets no spec.replicas: the live %d stays, as an apply that never set it leaves it", *d.Spec.Replicas))
	}
	dd, err := defaults.DeploymentUpdate(version, live.Deployment, mergeOver(live.Deployment, d))
	if err != nil {
		return nil, fmt.Errorf("%s: Deployment %s/%s: %w", where, d.Namespace, d.Name, err)
	}
	in.desired = dd
	return in, nil
}

// mergeOver returns the live Deployment with the applied one's spec,
// labels and annotations: what an apply sends as the update.
func mergeOver(live, applied *appsv1.Deployment) *appsv1.Deployment {
	out := live.DeepCopy()
	out.Spec = *applied.Spec.DeepCopy()
	for k, v := range applied.Labels {
		if out.Labels == nil {
			out.Labels = map[string]string{}
		}
		out.Labels[k] = v
	}
	for k, v := range applied.Annotations {
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[k] = v
	}
	return out
}

// liveInput reads the Deployment, its ReplicaSets and pods from the
// cluster, and has the apiserver default and merge the manifest through a
// server-side apply with dryRun=All. It only reads and dry-runs.
func liveInput(ctx context.Context, c kubernetes.Interface, source string, md *appsv1.Deployment, raw []byte, where string, opts ReadOptions) (*whatIfInput, error) {
	in := &whatIfInput{defaultedBy: "the apiserver of " + source + " (server-side apply, dryRun=All)"}
	deployments := c.AppsV1().Deployments(md.Namespace)
	live, err := ReadCluster(ctx, c, source, opts)
	switch {
	case err != nil && apierrors.IsNotFound(errors.Unwrap(err)):
		created, err := deployments.Create(ctx, md, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "kubectl"})
		if err != nil {
			return nil, dryRunError(source, where, md, "create", err)
		}
		in.desired = created
		return in, nil
	case err != nil:
		return nil, err
	}
	in.live = live
	body, err := applyBody(md, raw)
	if err != nil {
		return nil, err
	}
	patched, err := deployments.Patch(ctx, md.Name, types.ApplyPatchType, body,
		metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "kubectl", Force: ptr.To(true)})
	if err != nil {
		return nil, dryRunError(source, where, md, "server-side apply", err)
	}
	in.desired = patched
	in.notes = append(in.notes, "server-side apply as field manager kubectl with --force-conflicts: fields other managers own are taken over, as kubectl apply --server-side --force-conflicts would")
	return in, nil
}

// applyBody is the manifest as written with its namespace: the body of the
// server-side apply.
func applyBody(md *appsv1.Deployment, raw []byte) ([]byte, error) {
	var u map[string]any
	if err := json.Unmarshal(raw, &u); err != nil {
		return nil, err
	}
	meta, _ := u["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		u["metadata"] = meta
	}
	meta["namespace"] = md.Namespace
	return json.Marshal(u)
}

// dryRunError names the object and why the cluster refused the dry run.
func dryRunError(source, where string, md *appsv1.Deployment, what string, err error) error {
	hint := ""
	switch {
	case apierrors.IsForbidden(err):
		hint = " (a dry run needs the rights of the write it tries: patch and create on deployments.apps in " + md.Namespace + ")"
	case apierrors.IsInvalid(err):
		hint = " (the apiserver refuses the manifest: fix it before applying)"
	case apierrors.IsBadRequest(err), apierrors.IsMethodNotSupported(err), apierrors.IsUnsupportedMediaType(err):
		hint = " (an apiserver older than server-side apply refuses it: use --state with kubectl get deploy,rs,pods -o yaml)"
	}
	return fmt.Errorf("%s: the %s dry run of Deployment %s/%s (%s) was refused: %w%s", source, what, md.Namespace, md.Name, where, err, hint)
}

// answerWhatIf compares the defaulted manifest with the live Deployment and
// simulates the rollout from the live state.
func answerWhatIf(in *whatIfInput, now metav1.Time, percentile int, g *globals) (*WhatIf, error) {
	d := in.desired
	w := &WhatIf{Deployment: d.Namespace + "/" + d.Name, DefaultedBy: in.defaultedBy, Notes: in.notes}
	if in.live == nil {
		w.Verdict, w.Rolls = VerdictCreates, true
		w.Why = "the cluster has no Deployment " + w.Deployment + ": applying creates it and its first ReplicaSet"
		w.NewReplicaSet = newReplicaSetName(g.version, d)
		return w, nil
	}
	live := in.live.Deployment
	for _, c := range deployutil.TemplateChanges(&live.Spec.Template, &d.Spec.Template) {
		w.TemplateChanges = append(w.TemplateChanges, jsonChange{Path: c.Path, From: c.From, To: c.To})
	}
	w.OtherChanges = otherChanges(live, d)
	current := deployutil.FindNewReplicaSet(live, in.live.ReplicaSets)
	target := deployutil.FindNewReplicaSet(d, in.live.ReplicaSets)
	// While paused the controller creates no ReplicaSet and scales none up
	// for a new template (it only scales, for spec.replicas): a template
	// change applied paused waits, and resuming starts it even though the
	// template itself does not change then.
	pending := target == nil || (target.UID != uidOf(current) || live.Spec.Paused) && !runsAlone(target, in.live.ReplicaSets)
	switch {
	case len(w.TemplateChanges) == 0 && len(w.OtherChanges) == 0:
		w.Verdict = VerdictNothing
		w.Why = "nothing changes: the manifest after defaulting equals the live Deployment in everything the controller reads"
	case d.Spec.Paused && pending:
		w.Verdict = VerdictHeld
		if target == nil {
			w.ResumesTo = newReplicaSetName(g.version, d)
			w.Why = fmt.Sprintf("the Deployment is paused: no ReplicaSet has its pod template and none is created until it is resumed; then a new ReplicaSet %s replaces the pods", w.ResumesTo)
		} else {
			w.ResumesTo = target.Name
			w.Why = fmt.Sprintf("the Deployment is paused: its pod template is ReplicaSet %s's (revision %s), which is scaled up only once the Deployment is resumed", target.Name, orDash(target.Annotations[deployutil.RevisionAnnotation]))
		}
	case target == nil:
		w.Verdict, w.Rolls = VerdictRolls, true
		w.NewReplicaSet = newReplicaSetName(g.version, d)
		if len(w.TemplateChanges) > 0 {
			w.Why = fmt.Sprintf("the pod template changes in %d field(s): a new ReplicaSet %s replaces the pods", len(w.TemplateChanges), w.NewReplicaSet)
		} else {
			w.Why = fmt.Sprintf("no ReplicaSet has the pod template yet (it was changed while paused): resumed, a new ReplicaSet %s replaces the pods", w.NewReplicaSet)
		}
	case pending:
		w.Verdict, w.Rolls = VerdictRollsBack, true
		w.ReturnsTo = &jsonRevisionRef{Name: target.Name, Revision: target.Annotations[deployutil.RevisionAnnotation]}
		if target.UID == uidOf(current) {
			w.Why = fmt.Sprintf("resumed: the rollout to ReplicaSet %s (revision %s), held while paused, goes on", target.Name, orDash(w.ReturnsTo.Revision))
		} else {
			w.Why = fmt.Sprintf("the pod template is ReplicaSet %s's (revision %s): it scales back up, no new ReplicaSet", target.Name, orDash(w.ReturnsTo.Revision))
		}
	default:
		w.Verdict = VerdictNoRollout
		var parts []string
		for _, c := range w.OtherChanges {
			parts = append(parts, c.Path+" "+orDash(c.From)+" → "+orDash(c.To))
		}
		if len(parts) == 0 {
			// The template differs only in ways the controller's
			// comparison ignores (a quantity spelled differently).
			parts = append(parts, "the pod template's spelling; the controller finds its ReplicaSet "+target.Name+" equal")
		}
		w.Why = "no rollout: only " + strings.Join(parts, ", ")
		if len(w.OtherChanges) == 1 && w.OtherChanges[0].Path == "spec.replicas" {
			w.Why += ", a scaling event"
		}
	}
	w.Evidence = podEvidence(in.live, d, percentile)
	if w.Verdict == VerdictNothing {
		return w, nil
	}
	p, err := predict(in, w.Evidence, now, g)
	if err != nil {
		return nil, err
	}
	w.Prediction = p
	return w, nil
}

func uidOf(rs *appsv1.ReplicaSet) types.UID {
	if rs == nil {
		return ""
	}
	return rs.UID
}

// runsAlone: rs is the only one of the ReplicaSets that asks for pods, or
// none does and it is rs's template that has them (nothing to roll to).
func runsAlone(rs *appsv1.ReplicaSet, rss []*appsv1.ReplicaSet) bool {
	for _, o := range rss {
		if o.UID != rs.UID && o.Spec.Replicas != nil && *o.Spec.Replicas > 0 {
			return false
		}
	}
	return true
}

func orDash(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// newReplicaSetName is the name the controller gives the new ReplicaSet of
// d's template.
func newReplicaSetName(version string, d *appsv1.Deployment) string {
	hash, err := deployutil.ComputeHashFor(minorName(version), &d.Spec.Template, d.Status.CollisionCount)
	if err != nil {
		return ""
	}
	return deployutil.ReplicaSetName(d.Name, hash)
}

// otherChanges lists the spec fields outside the template that the
// controller reacts to, and what it does with each.
func otherChanges(a, b *appsv1.Deployment) []jsonChange {
	var out []jsonChange
	add := func(path, from, to, effect string) {
		if from != to {
			out = append(out, jsonChange{Path: path, From: from, To: to, Effect: effect})
		}
	}
	i32 := func(p *int32) string {
		if p == nil {
			return ""
		}
		return strconv.Itoa(int(*p))
	}
	add("spec.replicas", i32(a.Spec.Replicas), i32(b.Spec.Replicas), "a scaling event: the ReplicaSets are resized (proportionally during a rollout), no pod is replaced")
	add("spec.strategy.type", string(a.Spec.Strategy.Type), string(b.Spec.Strategy.Type), "the next rollout's strategy")
	ios := func(ru *appsv1.RollingUpdateDeployment, surge bool) string {
		if ru == nil {
			return ""
		}
		if surge && ru.MaxSurge != nil {
			return ru.MaxSurge.String()
		}
		if !surge && ru.MaxUnavailable != nil {
			return ru.MaxUnavailable.String()
		}
		return ""
	}
	add("spec.strategy.rollingUpdate.maxSurge", ios(a.Spec.Strategy.RollingUpdate, true), ios(b.Spec.Strategy.RollingUpdate, true), "read at every step of a rolling update, this one's too")
	add("spec.strategy.rollingUpdate.maxUnavailable", ios(a.Spec.Strategy.RollingUpdate, false), ios(b.Spec.Strategy.RollingUpdate, false), "read at every step of a rolling update, this one's too")
	add("spec.paused", strconv.FormatBool(a.Spec.Paused), strconv.FormatBool(b.Spec.Paused), "paused: the controller holds any rollout (scaling still happens); resumed: it goes on")
	add("spec.minReadySeconds", strconv.Itoa(int(a.Spec.MinReadySeconds)), strconv.Itoa(int(b.Spec.MinReadySeconds)), "how long a ready pod waits before it counts as available; written to the ReplicaSets")
	add("spec.revisionHistoryLimit", i32(a.Spec.RevisionHistoryLimit), i32(b.Spec.RevisionHistoryLimit), "old ReplicaSets at 0 past the limit are deleted")
	add("spec.progressDeadlineSeconds", i32(a.Spec.ProgressDeadlineSeconds), i32(b.Spec.ProgressDeadlineSeconds), "when a rollout without progress is reported as ProgressDeadlineExceeded")
	return out
}

// podEvidence reads the creation-to-Ready times of the Deployment's live
// pods and takes the percentile.
func podEvidence(live *Manifest, d *appsv1.Deployment, percentile int) jsonEvidence {
	var times []time.Duration
	for _, pods := range live.Pods {
		for _, p := range pods {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && !p.CreationTimestamp.IsZero() && !c.LastTransitionTime.Before(&p.CreationTimestamp) {
					times = append(times, c.LastTransitionTime.Sub(p.CreationTimestamp.Time))
				}
			}
		}
	}
	grace := int64(corev1.DefaultTerminationGracePeriodSeconds)
	if g := d.Spec.Template.Spec.TerminationGracePeriodSeconds; g != nil {
		grace = *g
	}
	ev := jsonEvidence{PodsRead: len(times), MinReadySeconds: d.Spec.MinReadySeconds, TerminationGrace: (time.Duration(grace) * time.Second).String()}
	if len(times) == 0 {
		ev.StartToReady = (5 * time.Second).String()
		ev.Source = "no Ready pod of the Deployment to read: the simulator's 5s (2s to start, 3s to Ready)"
		return ev
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	// Nearest rank: the smallest time at least percentile% of the pods
	// were Ready within.
	rank := (percentile*len(times) + 99) / 100
	ev.Percentile = percentile
	ev.StartToReady = times[max(rank, 1)-1].String()
	ev.Source = fmt.Sprintf("p%d of the creation-to-Ready times of %d Ready pods of the Deployment", percentile, len(times))
	return ev
}

// predict simulates the rollout from the live state with the desired
// Deployment, the pods taking the evidence's time to Ready and the
// termination grace to go.
func predict(in *whatIfInput, ev jsonEvidence, now metav1.Time, g *globals) (*jsonPrediction, error) {
	ready, err := time.ParseDuration(ev.StartToReady)
	if err != nil {
		return nil, err
	}
	grace, err := time.ParseDuration(ev.TerminationGrace)
	if err != nil {
		return nil, err
	}
	s := in.live.State(now)
	s.Deployment = in.desired
	start := ready / 2
	opts := []simulate.Option{simulate.WithPodStartDelay(start), simulate.WithReadinessDelay(ready - start),
		simulate.WithTerminationDelay(grace), simulate.WithSyncOptions(g.syncOptions()...)}
	if g.version != "" {
		opts = append(opts, simulate.WithKubernetesVersion(g.version))
	}
	tl, err := simulate.Run(s, opts...)
	if err != nil {
		return nil, in.live.Explain(err)
	}
	peak, _ := tl.PeakPods()
	minAvail, _ := tl.MinAvailable()
	return &jsonPrediction{Outcome: string(tl.Outcome), Duration: tl.Duration().String(), PeakPods: peak, MinAvailable: minAvail,
		Timeline: timelineJSON(tl, "")}, nil
}

// whatIfText is diff's text: the verdict and why, the changes, the
// prediction.
func whatIfText(w *WhatIf) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Deployment %s: %s\n", w.Deployment, w.Verdict)
	fmt.Fprintf(&b, "%s\n", wrapIndent(w.Why, "  "))
	fmt.Fprintf(&b, "%s\n", wrapIndent("defaulted by "+w.DefaultedBy, "  "))
	if w.NewReplicaSet != "" {
		fmt.Fprintf(&b, "new ReplicaSet: %s\n", w.NewReplicaSet)
	}
	if w.ReturnsTo != nil {
		fmt.Fprintf(&b, "back to: %s (revision %s), scaled up again\n", w.ReturnsTo.Name, orDash(w.ReturnsTo.Revision))
	}
	if w.ResumesTo != "" {
		fmt.Fprintf(&b, "once resumed: %s\n", w.ResumesTo)
	}
	if len(w.TemplateChanges) > 0 {
		switch {
		case w.Rolls:
			b.WriteString("\npod template changes (a new template: pods are replaced):\n")
		case w.Verdict == VerdictHeld:
			b.WriteString("\npod template changes (held: pods are replaced once resumed):\n")
		default:
			b.WriteString("\npod template changes (the pods' ReplicaSet has this template: none is replaced):\n")
		}
		for _, c := range w.TemplateChanges {
			b.WriteString(wrap("  - "+c.Path+": "+orDash(c.From)+" → "+orDash(c.To)) + "\n")
		}
	}
	if len(w.OtherChanges) > 0 {
		b.WriteString("\nchanges outside the template:\n")
		for _, c := range w.OtherChanges {
			b.WriteString(wrap("  - "+c.Path+": "+orDash(c.From)+" → "+orDash(c.To)+": "+c.Effect) + "\n")
		}
	}
	for _, n := range w.Notes {
		b.WriteString(wrapIndent("note: "+n, "      ") + "\n")
	}
	if p := w.Prediction; p != nil {
		ev := w.Evidence
		b.WriteString("\n" + wrapIndent(fmt.Sprintf("prediction (simulated from the live state): pods Ready %s after creation (%s), minReadySeconds %d, termination grace %s",
			ev.StartToReady, ev.Source, ev.MinReadySeconds, ev.TerminationGrace), "  ") + "\n")
		fmt.Fprintf(&b, "  outcome %s after %s; peak pods %d; lowest availability %d\n", p.Outcome, p.Duration, p.PeakPods, p.MinAvailable)
		b.WriteString("\n" + fitTimeline(timelineTable(p.Timeline)))
	}
	return b.String()
}

// timelineTable renders the predicted steps: the ReplicaSets' spec,
// ready and available pods after each step's sync.
func timelineTable(tl jsonTimeline) string {
	var b strings.Builder
	b.WriteString("STEP  TIME    REPLICASETS (spec/ready/available)\n")
	for _, s := range tl.Steps {
		var rs []string
		for _, r := range s.ReplicaSets {
			if r.Replicas == 0 && r.Pods.Pods == 0 {
				continue
			}
			rs = append(rs, fmt.Sprintf("%s %d/%d/%d", r.Name, r.Replicas, r.Pods.Ready, r.Pods.Available))
		}
		line := fmt.Sprintf("%-5d %-7s %s", s.Index, s.Elapsed, strings.Join(rs, ", "))
		b.WriteString(wrapLine(line, strings.Repeat(" ", 14))[0])
		for _, l := range wrapLine(line, strings.Repeat(" ", 14))[1:] {
			b.WriteString("\n" + l)
		}
		b.WriteString("\n")
	}
	return b.String()
}
