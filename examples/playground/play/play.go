// Package play is the playground's model, compiled both natively (for its
// tests) and to WebAssembly (for the page): a scenario — a Deployment as
// YAML, the pod model's knobs and the user's scripted changes — is parsed,
// run through the simulate package, and returned as the page shows it. The
// page does not compute anything about the controller itself: every number,
// branch, action and reason it shows comes from [Run].
package play

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/simulate"
)

// Start is the simulated time of step 0 of every run: the time of the
// simulator's golden scenarios, so that the same scenario gives the same
// transcript.
var Start = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// Request is a scenario as the page sends it (and as a shared link encodes
// it).
type Request struct {
	// YAML is the Deployment (apps/v1).
	YAML string `json:"yaml"`
	// Begin is where the run starts: "steady" (the default: the Deployment
	// fully rolled out an hour ago, one available ReplicaSet, see
	// [simulate.Steady]) or "new" (just created, no ReplicaSet yet).
	Begin string `json:"begin,omitempty"`
	// Script lists the user's edits during the run, one a line (see
	// [ParseScript]).
	Script string `json:"script,omitempty"`
	// Pods are the pod model's knobs.
	Pods PodModel `json:"pods"`
	// Collision puts an unrelated ReplicaSet under the name the
	// Deployment's new ReplicaSet would get after the changes at 0s: a hash
	// collision.
	Collision bool `json:"collision,omitempty"`
	// ReplicaSetQuota, when set, makes the apiserver refuse the new
	// ReplicaSet as a full quota on count/replicasets.apps does, with
	// QuotaMessage's words (naming the ReplicaSet the changes at 0s make):
	// until that time from the start (a Go duration, "7s"), or for the
	// whole run ("always"). See simulate.WithRefusedReplicaSets.
	ReplicaSetQuota string `json:"replicaSetQuota,omitempty"`
	// PodQuota, when set, is a ResourceQuota's hard pods on the namespace
	// (a whole number; "0" admits none): the apiserver refuses the pods
	// past it, counting terminating pods until they are gone. See
	// simulate.WithPodQuota.
	PodQuota string `json:"podQuota,omitempty"`
	// MaxSteps is the step limit (0: 2000).
	MaxSteps int `json:"maxSteps,omitempty"`
	// KubernetesVersion is the minor whose controller decides ("1.33" …
	// "1.37"; "" is the newest, [DefaultMinor]): see
	// deploysync.WithKubernetesVersion.
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// CompareMinor, when set to another minor, makes Run also run the
	// request as that minor decides it and say what differs
	// (Result.Differences); without it a run of a minor other than
	// DefaultMinor is compared with DefaultMinor.
	CompareMinor string `json:"compareMinor,omitempty"`
}

// PodModel holds the knobs of simulate's pod model; delays in seconds.
type PodModel struct {
	// StartDelay is the time from a pod's creation until it runs.
	StartDelay float64 `json:"startDelay"`
	// ReadyDelay is the time from running until ready.
	ReadyDelay float64 `json:"readyDelay"`
	// TerminationDelay is how long a deleted pod lingers as terminating.
	TerminationDelay float64 `json:"terminationDelay"`
	// FailureRate is the probability that a new pod never becomes ready.
	FailureRate float64 `json:"failureRate"`
	// Seed seeds the failure draws.
	Seed uint64 `json:"seed"`
	// FailingImages are images whose pods never become ready.
	FailingImages []string `json:"failingImages,omitempty"`
	// RefusedImages are images whose pods the apiserver refuses, as an
	// admission webhook does, with RefusedMessage's words.
	RefusedImages []string `json:"refusedImages,omitempty"`
	// RefusedUntil, in seconds, ends those refusals (a policy lifted):
	// the ReplicaSet controller makes the pods at its first retry after
	// (simulate.WithRefusedImageUntil); 0 keeps them to the end.
	RefusedUntil float64 `json:"refusedUntil,omitempty"`
}

// RefusedMessage is the apiserver's error the page's world gives for a
// pod of a refused image: a validating webhook's denial, as the
// simulator's golden scenario words it.
func RefusedMessage(image string) string {
	return `admission webhook "images.example.com" denied the request: image ` + image + ` is not allowed`
}

// QuotaMessage is the apiserver's error the page's world gives for the
// create of the ReplicaSet name under a full quota on ReplicaSets, as the
// ResourceQuota admission plugin words it (and the simulator's golden
// scenario).
func QuotaMessage(name string) string {
	return `replicasets.apps "` + name + `" is forbidden: exceeded quota: replicasets, requested: count/replicasets.apps=1, used: count/replicasets.apps=1, limited: count/replicasets.apps=1`
}

// DefaultPods are simulate's defaults.
var DefaultPods = PodModel{StartDelay: 2, ReadyDelay: 3, TerminationDelay: 5}

// Result is a run as the page shows it, or the input's problems.
type Result struct {
	// Problems are what is wrong with the request, each at its line of the
	// YAML when it has one; when there are any, nothing else is set.
	Problems []Problem `json:"problems,omitempty"`
	// Deployment is "namespace/name"; Strategy the simulator's description.
	Deployment string `json:"deployment,omitempty"`
	Strategy   string `json:"strategy,omitempty"`
	// Outcome is how the run ended.
	Outcome string `json:"outcome,omitempty"`
	// Head is the transcript before the first step (the header line and
	// the table); Steps[i].Text the step's part; Tail the summary. Head,
	// then "\n" + Steps[i].Text for every step with a part (see
	// Step.Folded), then "\n" + Tail is [simulate.Timeline.Transcript],
	// byte for byte.
	Head string `json:"head,omitempty"`
	Tail string `json:"tail,omitempty"`
	// Steps are the steps of the run.
	Steps []Step `json:"steps,omitempty"`
	// ReplicaSets are the ReplicaSets of the run in order of first
	// appearance.
	ReplicaSets []ReplicaSetInfo `json:"replicaSets,omitempty"`
	// Minor is the Kubernetes minor whose controller decided.
	Minor string `json:"minor,omitempty"`
	// Differences say what Minor decides differently from the minor it
	// was compared with (see Request.CompareMinor), found by running both.
	Differences *Differences `json:"differences,omitempty"`
}

// Problem is an error in the request.
type Problem struct {
	// In is the input it is about: "yaml" (the Deployment), "script" (the
	// changes) or "" (a knob, or the run as a whole).
	In string `json:"in,omitempty"`
	// Line is the 1-based line of that input, 0 if none.
	Line int `json:"line"`
	// Field is the field's path, when known.
	Field string `json:"field,omitempty"`
	// Message is the error as the library (or the YAML parser) gives it.
	Message string `json:"message"`
}

// Step is one step of a run.
type Step struct {
	Index   int     `json:"index"`
	Elapsed float64 `json:"elapsed"`
	// Branch is the branch of syncDeployment that decided.
	Branch  string   `json:"branch"`
	Changes []string `json:"changes,omitempty"`
	Actions []Action `json:"actions,omitempty"`
	// Why is the plan's Why (why the sync moves nothing on, with its
	// numbers), "" when nothing holds the rollout back.
	Why string `json:"why,omitempty"`
	// Function is the function the branch hands the Deployment to
	// ("rolloutRolling"), Calls its calls and what each did.
	Function string `json:"function,omitempty"`
	Calls    []Call `json:"calls,omitempty"`
	// Requeue, RequeueAfter (seconds) and Err are the plan's; RequeueWhy
	// is the simulator's reason for the requeue.
	Requeue      bool    `json:"requeue,omitempty"`
	RequeueAfter float64 `json:"requeueAfter,omitempty"`
	RequeueWhy   string  `json:"requeueWhy,omitempty"`
	Err          string  `json:"err,omitempty"`
	// Replicas, MaxSurge and MaxUnavailable are the Deployment's at the
	// sync.
	Replicas       int32 `json:"replicas"`
	MaxSurge       int32 `json:"maxSurge"`
	MaxUnavailable int32 `json:"maxUnavailable"`
	// ReplicaSets are sizes and pods after the plan, keyed by name.
	ReplicaSets map[string]ReplicaSetStep `json:"replicaSets"`
	Totals      Counts                    `json:"totals"`
	Conditions  []Condition               `json:"conditions,omitempty"`
	// Text is the step's part of the simulator's transcript.
	Text string `json:"text"`
	// Folded marks a step the transcript does not show by itself: one of
	// a run of rate-limited requeues that do what the run's first step did
	// and nothing else, shown as one line. The first folded step's Text is
	// that line; the others' is empty and takes no part in the transcript.
	Folded bool `json:"folded,omitempty"`
}

// Action is one action of a plan: what it does and why.
type Action struct {
	// What is the action without its reason; Why is the reason; Line the
	// whole line as the transcript prints it.
	What string `json:"what"`
	Why  string `json:"why"`
	Line string `json:"line"`
}

// ReplicaSetInfo describes a ReplicaSet of the run.
type ReplicaSetInfo struct {
	Name     string `json:"name"`
	Revision string `json:"revision"`
	// Hash is its pod-template-hash label; Images its containers' images,
	// comma-separated.
	Hash   string `json:"hash"`
	Images string `json:"images"`
}

// ReplicaSetStep is a ReplicaSet at a step.
type ReplicaSetStep struct {
	Revision string `json:"revision"`
	New      bool   `json:"new,omitempty"`
	Replicas int32  `json:"replicas"`
	Pods     Counts `json:"pods"`
}

// Counts are pods by state (see [simulate.Counts]).
type Counts struct {
	Pods        int32 `json:"pods"`
	Ready       int32 `json:"ready"`
	Available   int32 `json:"available"`
	Terminating int32 `json:"terminating"`
}

// Condition is a Deployment condition after a step.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Run parses the request, runs the simulation and returns what the page
// shows. Problems with the input (YAML, fields, the library's InputErrors,
// bad knobs) are in Result.Problems; Run never panics on input.
func Run(req Request) Result {
	res := run(req)
	if len(res.Problems) > 0 {
		return res
	}
	other := req.CompareMinor
	if other == "" {
		other = DefaultMinor()
	}
	if other != res.Minor {
		o := req
		o.KubernetesVersion, o.CompareMinor = other, ""
		res.Differences = compare(res, run(o), other)
	}
	return res
}

func run(req Request) Result {
	d, probs := parseDeployment(req.YAML)
	if len(probs) > 0 {
		return Result{Problems: probs}
	}
	s, opts, err := build(req, d)
	if err == nil {
		var tl *simulate.Timeline
		tl, err = simulate.Run(s, opts...)
		if err == nil {
			res, err := view(tl)
			if err != nil {
				return Result{Problems: []Problem{{Message: err.Error()}}}
			}
			res.Minor = version(req)
			return res
		}
	}
	return Result{Problems: locate(req.YAML, err)}
}

// Transcript runs the request and returns the simulator's transcript, as a
// native program would print it.
func Transcript(req Request) (string, error) {
	d, probs := parseDeployment(req.YAML)
	if len(probs) > 0 {
		return "", errors.New(probs[0].Message)
	}
	s, opts, err := build(req, d)
	if err != nil {
		return "", err
	}
	tl, err := simulate.Run(s, opts...)
	if err != nil {
		return "", err
	}
	return tl.Transcript(), nil
}

// version is the request's Kubernetes minor, DefaultMinor when it names
// none.
func version(req Request) string {
	if req.KubernetesVersion == "" {
		return DefaultMinor()
	}
	return req.KubernetesVersion
}

// Minors returns the Kubernetes minors the library decides as, oldest
// first (deploysync.KubernetesVersions).
func Minors() []string { return deploysync.KubernetesVersions() }

// DefaultMinor is the minor a request without one runs as: the newest the
// library knows, which is deploysync.WithKubernetesVersion's default.
func DefaultMinor() string {
	m := Minors()
	return m[len(m)-1]
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// build makes the start state and the options of a run.
func build(req Request, d *appsv1.Deployment) (deploysync.State, []simulate.Option, error) {
	var s deploysync.State
	switch req.Begin {
	case "", "steady":
		var err error
		if s, err = simulate.SteadyFor(version(req), d, Start); err != nil {
			return s, nil, err
		}
	case "new":
		d = deployutil.SetDefaults(d)
		if d.UID == "" {
			d.UID = types.UID(d.Name + "-uid")
		}
		if d.Generation == 0 {
			d.Generation = 1
		}
		s = deploysync.State{Deployment: d, Now: Start}
	default:
		return s, nil, fmt.Errorf("begin %q: want steady or new", req.Begin)
	}
	changes, err := ParseScript(req.Script)
	if err != nil {
		return s, nil, err
	}
	if req.Collision {
		rs, err := squatter(s.Deployment, changes, version(req))
		if err != nil {
			return s, nil, err
		}
		s.ReplicaSets = append(s.ReplicaSets, rs)
	}
	p := req.Pods
	steps := req.MaxSteps
	if steps == 0 {
		steps = 2000
	}
	opts := []simulate.Option{
		simulate.WithPodStartDelay(seconds(p.StartDelay)), simulate.WithReadinessDelay(seconds(p.ReadyDelay)),
		simulate.WithTerminationDelay(seconds(p.TerminationDelay)), simulate.WithFailureRate(p.FailureRate),
		simulate.WithSeed(p.Seed), simulate.WithMaxSteps(min(steps, 5000)), simulate.WithMaxPods(20_000),
		simulate.WithChanges(changes...), simulate.WithKubernetesVersion(version(req)),
	}
	for _, img := range p.FailingImages {
		opts = append(opts, simulate.WithFailingImage(img))
	}
	if p.RefusedUntil < 0 {
		return s, nil, fmt.Errorf("refusedUntil %v: want seconds from the start, or 0 for refusals that never end", p.RefusedUntil)
	}
	for _, img := range p.RefusedImages {
		opts = append(opts, simulate.WithRefusedImageUntil(img, RefusedMessage(img), seconds(p.RefusedUntil)))
	}
	if req.PodQuota != "" {
		n, err := strconv.ParseInt(strings.TrimSpace(req.PodQuota), 10, 64)
		if err != nil || n < 0 {
			return s, nil, fmt.Errorf("podQuota %q: want a whole number of pods, 0 or more", req.PodQuota)
		}
		opts = append(opts, simulate.WithPodQuota("pods", n))
	}
	if req.ReplicaSetQuota != "" {
		o, err := quotaOption(req, s.Deployment, changes)
		if err != nil {
			return s, nil, err
		}
		opts = append(opts, o)
	}
	return s, opts, nil
}

// squatter returns a ReplicaSet no Deployment owns, labelled app=squatter,
// under the name the Deployment's new ReplicaSet gets once the changes due
// at 0s are made: its creation collides.
func squatter(d *appsv1.Deployment, changes []simulate.Change, minor string) (*appsv1.ReplicaSet, error) {
	name, err := newName(d, changes, minor)
	if err != nil {
		return nil, err
	}
	labels := map[string]string{"app": "squatter"}
	rs := &appsv1.ReplicaSet{}
	rs.Name, rs.Namespace, rs.UID, rs.Generation = name, d.Namespace, types.UID(name+"-squatter-uid"), 1
	rs.Labels = labels
	rs.CreationTimestamp.Time = Start.Add(-2 * time.Hour)
	rs.Spec.Replicas = ptr.To[int32](0)
	rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
	rs.Spec.Template.Labels = labels
	rs.Spec.Template.Spec.Containers = []corev1.Container{{Name: "squatter", Image: "busybox"}}
	rs.Status.ObservedGeneration = 1
	rs.Status.TerminatingReplicas = ptr.To[int32](0)
	return rs, nil
}

// newName is the name of the Deployment's new ReplicaSet once the changes
// due at 0s are made.
func newName(d *appsv1.Deployment, changes []simulate.Change, minor string) (string, error) {
	d = d.DeepCopy()
	for _, c := range changes {
		if c.At == 0 {
			if err := c.Edit(d); err != nil {
				return "", err
			}
		}
	}
	hash, err := deployutil.ComputeHashFor(minor, &d.Spec.Template, d.Status.CollisionCount)
	if err != nil {
		return "", err
	}
	return deployutil.ReplicaSetName(d.Name, hash), nil
}

// quotaOption reads Request.ReplicaSetQuota.
func quotaOption(req Request, d *appsv1.Deployment, changes []simulate.Change) (simulate.Option, error) {
	until := time.Duration(0)
	if req.ReplicaSetQuota != "always" {
		var err error
		if until, err = time.ParseDuration(req.ReplicaSetQuota); err != nil || until <= 0 {
			return nil, fmt.Errorf("replicaSetQuota %q: want a time from the start such as 7s, or always", req.ReplicaSetQuota)
		}
	}
	name, err := newName(d, changes, version(req))
	if err != nil {
		return nil, err
	}
	return simulate.WithRefusedReplicaSets(until, QuotaMessage(name)), nil
}

// view turns a timeline into the page's result.
func view(tl *simulate.Timeline) (Result, error) {
	tr := tl.Transcript()
	res := Result{Deployment: tl.Deployment, Strategy: tl.Strategy, Outcome: string(tl.Outcome)}
	pos, owner := -1, -1 // where the last step's part starts, and its step
	seen := map[string]bool{}
	for i := range tl.Steps {
		s := &tl.Steps[i]
		marker := fmt.Sprintf("\nstep %d +", s.Index)
		at := strings.Index(tr[max(pos, 0):], marker)
		folded := false
		if at < 0 {
			// The first of a folded run of requeues, or one after it.
			at = strings.Index(tr[max(pos, 0):], fmt.Sprintf("\nsteps %d to ", s.Index))
			folded = true
		}
		switch {
		case at >= 0:
			at += max(pos, 0)
			if i == 0 {
				res.Head = tr[:at]
			} else {
				res.Steps[owner].Text = tr[pos+1 : at]
			}
			pos, owner = at, i
		case owner < 0 || !res.Steps[owner].Folded:
			return Result{}, fmt.Errorf("the transcript has no %q", marker[1:])
		}
		st := Step{Folded: folded, Index: s.Index, Elapsed: s.Elapsed.Seconds(), Branch: string(s.Branch), Changes: s.Changes,
			Function: Function(s.Branch), Calls: flow(s),
			Why: s.Why.String(), Requeue: s.Requeue, RequeueAfter: s.RequeueAfter.Seconds(), RequeueWhy: s.RequeueWhy,
			Replicas: s.Replicas, MaxSurge: s.MaxSurge, MaxUnavailable: s.MaxUnavailable,
			ReplicaSets: map[string]ReplicaSetStep{}, Totals: counts(s.Totals)}
		if s.Err != nil {
			st.Err = s.Err.Error()
		}
		for _, a := range s.Actions {
			line, why := a.String(), a.Explain()
			st.Actions = append(st.Actions, Action{What: strings.TrimSuffix(line, ": "+why), Why: why, Line: line})
		}
		for _, rs := range s.ReplicaSets {
			st.ReplicaSets[rs.Name] = ReplicaSetStep{Revision: rs.Revision, New: rs.New, Replicas: rs.Replicas, Pods: counts(rs.Pods)}
			if !seen[rs.Name] {
				seen[rs.Name] = true
				res.ReplicaSets = append(res.ReplicaSets, ReplicaSetInfo{Name: rs.Name, Revision: rs.Revision})
			}
		}
		for _, c := range s.Conditions {
			st.Conditions = append(st.Conditions, Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message})
		}
		res.Steps = append(res.Steps, st)
	}
	tail := "\n" + tl.Summary()
	if len(res.Steps) == 0 || !strings.HasSuffix(tr, tail) || pos+1 > len(tr)-len(tail) {
		return Result{}, errors.New("the transcript does not end with the summary")
	}
	res.Steps[owner].Text = tr[pos+1 : len(tr)-len(tail)]
	res.Tail = tl.Summary()
	templates := replicaSetTemplates(tl)
	for i := range res.ReplicaSets {
		info := &res.ReplicaSets[i]
		if t, ok := templates[info.Name]; ok {
			info.Hash, info.Images = t.hash, t.images
		}
	}
	if got := res.Join(); got != tr {
		return Result{}, errors.New("the transcript's parts do not add up to it")
	}
	return res, nil
}

// Join puts the transcript back together from its parts, as the page does.
func (r *Result) Join() string {
	var b strings.Builder
	b.WriteString(r.Head)
	for _, s := range r.Steps {
		if !s.Folded || s.Text != "" {
			b.WriteString("\n" + s.Text)
		}
	}
	b.WriteString("\n" + r.Tail)
	return b.String()
}

func counts(c simulate.Counts) Counts {
	return Counts{Pods: c.Pods, Ready: c.Ready, Available: c.Available, Terminating: c.Terminating}
}

type template struct{ hash, images string }

// replicaSetTemplates returns each ReplicaSet's pod-template-hash and
// images, from the ReplicaSets the run created or ended with.
func replicaSetTemplates(tl *simulate.Timeline) map[string]template {
	out := map[string]template{}
	add := func(rs *appsv1.ReplicaSet) {
		var imgs []string
		for _, c := range rs.Spec.Template.Spec.Containers {
			imgs = append(imgs, c.Image)
		}
		out[rs.Name] = template{hash: rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey], images: strings.Join(imgs, ",")}
	}
	for _, s := range tl.Steps {
		for _, a := range s.Actions {
			if c, ok := a.(*action.CreateReplicaSet); ok {
				add(c.ReplicaSet)
			}
		}
	}
	for _, rs := range tl.Final.ReplicaSets {
		add(rs)
	}
	return out
}
