// Package cli is kubectl-deploysync, a kubectl plugin that runs the
// Deployment controller's decisions over manifests instead of a cluster:
// plan (what one sync would do now, with reasons), simulate (the whole
// rollout, as a table and an SVG chart), history and status (what kubectl
// rollout history and rollout status would print).
//
// Input is a file as `kubectl get deploy,rs,pods -o yaml` prints it (a v1
// List) or several YAML documents; see [LoadManifest].
//
// Exit codes (see [ExitError]): 0 success (for simulate: the rollout
// completed); 1 an error (bad flags or input; for status, a rollout past its
// deadline, as kubectl rollout status); and for simulate one code per other
// outcome: [ExitViolation], [ExitDeadlineExceeded], [ExitStalled],
// [ExitStepLimit], [ExitPaused]; [ExitPartialInput] when status refuses a
// verdict on a file that lacks the Deployment's ReplicaSets.
package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/simulate"
)

// The exit codes of the commands besides 0 (success) and 1 (an error).
const (
	// ExitViolation: simulate found the controller breaking an invariant
	// (a bug of the library, or of upstream: please report it). It wins over
	// the outcome codes below.
	ExitViolation = 2
	// ExitDeadlineExceeded: the simulated rollout ended past its progress
	// deadline (Progressing is ProgressDeadlineExceeded).
	ExitDeadlineExceeded = 3
	// ExitStalled: the simulated rollout ended with nothing left to happen,
	// neither complete nor past a deadline.
	ExitStalled = 4
	// ExitStepLimit: the simulation reached --max-steps still going.
	ExitStepLimit = 5
	// ExitPaused: the simulated Deployment is paused, so nothing rolled out.
	ExitPaused = 6
	// ExitPartialInput: status refused a verdict because the file lacks
	// ReplicaSets the Deployment refers to.
	ExitPartialInput = 7
)

// outcomeCodes maps every outcome of a simulation to its exit code.
var outcomeCodes = map[simulate.Outcome]int{
	simulate.Complete:         0,
	simulate.DeadlineExceeded: ExitDeadlineExceeded,
	simulate.Stalled:          ExitStalled,
	simulate.StepLimit:        ExitStepLimit,
	simulate.Paused:           ExitPaused,
}

// ExitError carries the exit code of a command that ran but reports a
// failure (a rollout past its deadline, a broken invariant).
type ExitError struct {
	Code int
	Err  error
}

// Error is the wrapped error's message.
func (e *ExitError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *ExitError) Unwrap() error { return e.Err }

type globals struct {
	file       string
	namespace  string
	deployment string
	now        string
	fixes      []string
	version    string
	clock      func() time.Time
}

// exitCodesHelp is the table of exit codes the help prints.
const exitCodesHelp = `Exit codes:
  0  success; for simulate, the rollout completed
  1  an error: bad flags or input; for status, a rollout past its progress
     deadline (as kubectl rollout status)
  2  simulate: the controller broke an invariant (please report it)
  3  simulate: the rollout ended past its progress deadline
  4  simulate: the rollout stalled (nothing left to happen, not complete)
  5  simulate: --max-steps reached while still going
  6  simulate: the Deployment is paused
  7  status: the file lacks ReplicaSets the Deployment refers to`

// NewCommand returns the kubectl-deploysync command. clock gives the time
// when --now is not set (time.Now in the binary).
func NewCommand(stdout, stderr io.Writer, clock func() time.Time) *cobra.Command {
	g := &globals{clock: clock}
	root := &cobra.Command{
		Use:   "kubectl-deploysync",
		Short: "The Deployment controller's decisions over manifests, without a cluster",
		Long: `kubectl deploysync runs kube-controller-manager v1.37.2's Deployment sync
(github.com/deploysync/deploysync) over a file of manifests, such as
  kubectl get deploy,rs,pods -n NAMESPACE -l SELECTOR -o yaml > state.yaml
(a Deployment alone is not enough: its ReplicaSets are the controller's state).

` + exitCodesHelp,
		Example: `  kubectl get deploy,rs,pods -n shop -l app=web -o yaml | kubectl deploysync plan -f -
  kubectl deploysync simulate -f state.yaml --set-image web=nginx:1.29 --svg rollout.svg
  kubectl deploysync status -f state.yaml`,
		// kubectl runs the binary kubectl-deploysync as "kubectl deploysync".
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl deploysync"},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	pf := root.PersistentFlags()
	pf.StringVarP(&g.file, "filename", "f", "", "file with the Deployment, its ReplicaSets and pods (YAML documents or a v1 List; - reads stdin; required)")
	pf.StringVarP(&g.namespace, "namespace", "n", "", "only objects of this namespace; objects without one get it (default: a Deployment without namespace is in \"default\")")
	pf.StringVar(&g.deployment, "deployment", "", "name of the Deployment, if the file has several")
	pf.StringSliceVar(&g.fixes, "fix", nil, "correct known upstream bugs, by name (repeatable or comma-separated): "+fixNames())
	pf.StringVar(&g.now, "now", "", "time of the sync, RFC 3339 (default: the wall clock)")
	pf.StringVar(&g.version, "kubernetes-version", "", "decide as this Kubernetes minor's controller and kubectl: "+strings.Join(deploysync.KubernetesVersions(), ", ")+
		" (a server version such as v1.34.4-eks-1a2b3c is read as its minor; default 1.37)")
	root.AddCommand(planCommand(g), simulateCommand(g), historyCommand(g), statusCommand(g))
	return root
}

// load reads the file and reports its notes on stderr; it returns the time
// of --now, or of the clock without it.
func (g *globals) load(cmd *cobra.Command) (*Manifest, metav1.Time, error) {
	if g.file == "" {
		return nil, metav1.Time{}, errors.New("-f FILE is required")
	}
	var now time.Time
	if g.now != "" {
		t, err := time.Parse(time.RFC3339, g.now)
		if err != nil {
			return nil, metav1.Time{}, fmt.Errorf("--now: %w", err)
		}
		now = t
	} else if cmd.Name() == "plan" || cmd.Name() == "simulate" {
		now = g.clock()
	}
	if _, err := g.syncFixes(); err != nil {
		return nil, metav1.Time{}, err
	}
	if err := g.checkVersion(); err != nil {
		return nil, metav1.Time{}, err
	}
	var m *Manifest
	var err error
	if g.file == "-" {
		m, err = ReadManifest(cmd.InOrStdin(), "stdin", g.namespace, g.deployment)
	} else {
		m, err = LoadManifest(g.file, g.namespace, g.deployment)
	}
	if err != nil {
		return nil, metav1.Time{}, err
	}
	for _, n := range m.Notes {
		fmt.Fprintln(cmd.ErrOrStderr(), "note:", n)
	}
	if p := m.Partial(); p != "" && cmd.Name() != "status" {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", p)
	}
	return m, metav1.NewTime(now.UTC()), nil
}

func fixNames() string {
	var names []string
	for _, f := range deploysync.Fixes() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// syncFixes returns the --fix names as fixes, refusing unknown ones.
func (g *globals) syncFixes() ([]deploysync.Fix, error) {
	var out []deploysync.Fix
	for _, name := range g.fixes {
		found := false
		for _, f := range deploysync.Fixes() {
			if strings.EqualFold(name, string(f)) {
				out, found = append(out, f), true
			}
		}
		if !found {
			return nil, fmt.Errorf("--fix %q: unknown; the fixes are %s", name, fixNames())
		}
	}
	return out, nil
}

func (g *globals) syncOptions() []deploysync.Option {
	var opts []deploysync.Option
	if fixes, _ := g.syncFixes(); len(fixes) > 0 {
		opts = append(opts, deploysync.WithFixes(fixes...))
	}
	if g.version != "" {
		opts = append(opts, deploysync.WithKubernetesVersion(g.version))
	}
	return opts
}

func planCommand(g *globals) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "plan -f FILE",
		Short: "Print what the controller would do now, with the reason of every write",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "text" && output != "json" {
				return fmt.Errorf("-o %q: want text or json", output)
			}
			m, now, err := g.load(cmd)
			if err != nil {
				return err
			}
			plan, err := deploysync.Sync(m.State(now), g.syncOptions()...)
			if err != nil {
				return m.Explain(err)
			}
			fixes, _ := g.syncFixes()
			why := ""
			switch {
			case len(plan.Actions) == 0 && plan.Err == nil && !plan.Requeue && plan.RequeueAfter == 0:
				why = "nothing to do: " + idleReason(m.Deployment, m.ReplicaSets, plan, fixes)
			case plan.Requeue && plan.Err == nil:
				why = requeueReason(m.Deployment, now)
			}
			if output == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				j := planJSON(plan)
				j.Why = why
				return enc.Encode(j)
			}
			text := plan.String()
			if why != "" {
				text += "\n" + why
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), text)
			return err
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "text or json")
	return cmd
}

// jsonPlan is the machine-readable form of a plan.
type jsonPlan struct {
	Branch       deploysync.Branch `json:"branch"`
	Actions      []jsonAction      `json:"actions"`
	Requeue      bool              `json:"requeue,omitempty"`
	RequeueAfter string            `json:"requeueAfter,omitempty"`
	Error        string            `json:"error,omitempty"`
	// Why says why nothing is done, or why the plan requeues at once.
	Why string `json:"why,omitempty"`
}

// jsonAction is one action: its type, a one-line summary, the reason and
// the object or patch it writes.
type jsonAction struct {
	Type       string             `json:"type"`
	Summary    string             `json:"summary"`
	Reason     string             `json:"reason"`
	ReplicaSet *appsv1.ReplicaSet `json:"replicaSet,omitempty"`
	Deployment *appsv1.Deployment `json:"deployment,omitempty"`
	Name       string             `json:"name,omitempty"`
	Patch      json.RawMessage    `json:"patch,omitempty"`
	Event      *jsonEvent         `json:"event,omitempty"`
}

type jsonEvent struct {
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func planJSON(p deploysync.Plan) jsonPlan {
	out := jsonPlan{Branch: p.Branch, Actions: []jsonAction{}, Requeue: p.Requeue}
	if p.RequeueAfter > 0 {
		out.RequeueAfter = p.RequeueAfter.String()
	}
	if p.Err != nil {
		out.Error = p.Err.Error()
	}
	for _, a := range p.Actions {
		j := jsonAction{Type: fmt.Sprintf("%T", a)[len("*action."):], Summary: a.String(), Reason: a.Explain()}
		switch a := a.(type) {
		case *action.CreateReplicaSet:
			j.ReplicaSet = withReplicaSetKind(a.ReplicaSet)
		case *action.UpdateReplicaSet:
			j.ReplicaSet = withReplicaSetKind(a.ReplicaSet)
		case *action.DeleteReplicaSet:
			j.Name = a.Name
		case *action.AdoptReplicaSet:
			j.Name, j.Patch = a.Name, a.Patch
		case *action.ReleaseReplicaSet:
			j.Name, j.Patch = a.Name, a.Patch
		case *action.UpdateDeployment:
			j.Deployment = withDeploymentKind(a.Deployment)
		case *action.UpdateDeploymentStatus:
			j.Deployment = withDeploymentKind(a.Deployment)
		case *action.Event:
			j.Event = &jsonEvent{Type: a.Type, Reason: a.Reason, Message: a.Message}
		}
		out.Actions = append(out.Actions, j)
	}
	return out
}

// withReplicaSetKind returns a copy with apiVersion and kind set, so that
// the object can be fed back to kubectl or to this command.
func withReplicaSetKind(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	rs = rs.DeepCopy()
	rs.APIVersion, rs.Kind = "apps/v1", "ReplicaSet"
	return rs
}

// withDeploymentKind is withReplicaSetKind for a Deployment.
func withDeploymentKind(d *appsv1.Deployment) *appsv1.Deployment {
	d = d.DeepCopy()
	d.APIVersion, d.Kind = "apps/v1", "Deployment"
	return d
}

func simulateCommand(g *globals) *cobra.Command {
	var (
		svg, setImage           string
		tick, start, ready, end time.Duration
		failureRate             float64
		seed                    uint64
		failing                 []string
		maxSteps                int
		maxPods                 int64
		transcript              bool
	)
	cmd := &cobra.Command{
		Use:   "simulate -f FILE [--svg out.svg]",
		Short: "Simulate the rollout from the file's state and print its timeline",
		Long: `Simulate the rollout from the file's state: pods start, become ready and
terminate as the flags say, and the controller syncs whenever something
changed. The table shows every step where something visible happened; the
invariants hold the controller to what it does from the input onward (a state
the input already breaks is reported as such, not as the controller's fault).

The exit code says how the rollout ended:
  0  Complete                  3  ProgressDeadlineExceeded
  4  Stalled                   5  step limit (--max-steps) reached
  6  Paused                    2  an invariant broken by the controller
  1  an error (bad flags or input, a world over --max-pods)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, now, err := g.load(cmd)
			if err != nil {
				return err
			}
			if err := checkPodLimit(m, maxPods); err != nil {
				return err
			}
			fixes, _ := g.syncFixes()
			opts := []simulate.Option{simulate.WithTick(tick), simulate.WithPodStartDelay(start), simulate.WithReadinessDelay(ready),
				simulate.WithTerminationDelay(end), simulate.WithFailureRate(failureRate), simulate.WithSeed(seed), simulate.WithMaxSteps(maxSteps),
				simulate.WithMaxPods(maxPods), simulate.WithSyncOptions(g.syncOptions()...)}
			if g.version != "" {
				opts = append(opts, simulate.WithKubernetesVersion(g.version))
			}
			for _, img := range failing {
				opts = append(opts, simulate.WithFailingImage(img))
			}
			if setImage != "" {
				ch, err := parseSetImage(setImage)
				if err != nil {
					return err
				}
				opts = append(opts, simulate.WithChanges(ch))
			}
			tl, err := simulate.Run(m.State(now), opts...)
			if err != nil {
				if strings.Contains(err.Error(), "(WithMaxPods)") {
					return fmt.Errorf("%w: raise it with --max-pods, or simulate a smaller copy of the Deployment", err)
				}
				return m.Explain(err)
			}
			out := cmd.OutOrStdout()
			if transcript {
				fmt.Fprint(out, tl.Transcript())
			} else {
				fmt.Fprintf(out, "Deployment %s, %s\n\n%s\n%s", tl.Deployment, tl.Strategy, tl.Table(), tl.Summary())
			}
			note := outcomeNote(tl, fixes)
			if note != "" {
				fmt.Fprintf(out, "why:            %s\n", indent(note, "                "))
			}
			if svg != "" {
				f, err := os.Create(svg)
				if err != nil {
					return err
				}
				if err := WriteChart(f, tl); err != nil {
					f.Close()
					return err
				}
				if err := f.Close(); err != nil {
					return err
				}
				fmt.Fprintln(cmd.ErrOrStderr(), "wrote", svg)
			}
			if err := tl.Err(); err != nil {
				return &ExitError{Code: ExitViolation, Err: fmt.Errorf("the controller broke invariants (exit code %d):\n%w", ExitViolation, err)}
			}
			if code := outcomeCodes[tl.Outcome]; code != 0 {
				return &ExitError{Code: code, Err: fmt.Errorf("the rollout ended %s (exit code %d)", tl.Outcome, code)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&svg, "svg", "", "also write an SVG chart of the replicas, pods and available pods over time")
	f.StringVar(&setImage, "set-image", "", "change an image at the start, CONTAINER=IMAGE (as kubectl set image)")
	f.DurationVar(&tick, "tick", time.Second, "simulated time between steps")
	f.DurationVar(&start, "start-delay", 2*time.Second, "time from a pod's creation until it runs")
	f.DurationVar(&ready, "readiness-delay", 3*time.Second, "time from running until ready")
	f.DurationVar(&end, "termination-delay", 5*time.Second, "time a deleted pod lingers as terminating")
	f.Float64Var(&failureRate, "failure-rate", 0, "probability that a new pod never becomes ready")
	f.Uint64Var(&seed, "seed", 0, "seed of the failure draws")
	f.StringArrayVar(&failing, "failing-image", nil, "pods of this image never become ready (repeatable)")
	f.IntVar(&maxSteps, "max-steps", 5000, "step limit")
	f.Int64Var(&maxPods, "max-pods", 1_000_000, "most pods the simulated world may hold (memory grows with it)")
	f.BoolVar(&transcript, "transcript", false, "print every step's actions with their reasons and conditions")
	return cmd
}

func parseSetImage(s string) (simulate.Change, error) {
	if c, img, ok := strings.Cut(s, "="); ok && c != "" && img != "" {
		return simulate.SetImage(0, c, img), nil
	}
	return simulate.Change{}, fmt.Errorf("--set-image %q: want CONTAINER=IMAGE", s)
}

func historyCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "history -f FILE",
		Short: "Print the rollout history as kubectl rollout history does",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, _, err := g.load(cmd)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), RolloutHistoryFor(g.kubernetesVersion(), m.Deployment, m.ReplicaSets))
			return err
		},
	}
}

func statusCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "status -f FILE",
		Short: "Print the rollout status as kubectl rollout status --watch=false does",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, _, err := g.load(cmd)
			if err != nil {
				return err
			}
			if p := m.Partial(); p != "" {
				return &ExitError{Code: ExitPartialInput, Err: fmt.Errorf("no verdict: %s", p)}
			}
			msg, _, err := RolloutStatus(m.Deployment)
			if err != nil {
				return &ExitError{Code: 1, Err: err}
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), msg)
			return err
		},
	}
}
