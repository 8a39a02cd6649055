// Package cli is kubectl-deploysync, a kubectl plugin that runs the
// Deployment controller's decisions over manifests instead of a cluster:
// plan (what one sync would do now, with reasons), simulate (the whole
// rollout, as a table and an SVG chart), history and status (what kubectl
// rollout history and rollout status would print).
//
// Input is a file as `kubectl get deploy,rs,pods -o yaml` prints it (a v1
// List) or several YAML documents; see [LoadManifest].
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
	deployment string
	now        string
	clock      func() time.Time
}

// NewCommand returns the kubectl-deploysync command. clock gives the time
// when --now is not set (time.Now in the binary).
func NewCommand(stdout, stderr io.Writer, clock func() time.Time) *cobra.Command {
	g := &globals{clock: clock}
	root := &cobra.Command{
		Use:   "kubectl-deploysync",
		Short: "The Deployment controller's decisions over manifests, without a cluster",
		Long: `kubectl-deploysync runs kube-controller-manager v1.37.2's Deployment sync
(github.com/deploysync/deploysync) over a file of manifests, such as
  kubectl get deploy,rs,pods -o yaml > state.yaml`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	pf := root.PersistentFlags()
	pf.StringVarP(&g.file, "filename", "f", "", "file with the Deployment, its ReplicaSets and pods (YAML documents or a v1 List; required)")
	pf.StringVar(&g.deployment, "deployment", "", "name of the Deployment, if the file has several")
	pf.StringVar(&g.now, "now", "", "time of the sync, RFC 3339 (default: the wall clock)")
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
	m, err := LoadManifest(g.file, g.deployment)
	if err != nil {
		return nil, metav1.Time{}, err
	}
	for _, n := range m.Notes {
		fmt.Fprintln(cmd.ErrOrStderr(), "note:", n)
	}
	return m, metav1.NewTime(now.UTC()), nil
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
			plan, err := deploysync.Sync(m.State(now))
			if err != nil {
				return m.Explain(err)
			}
			if output == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(planJSON(plan))
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), plan)
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
			j.ReplicaSet = a.ReplicaSet
		case *action.UpdateReplicaSet:
			j.ReplicaSet = a.ReplicaSet
		case *action.DeleteReplicaSet:
			j.Name = a.Name
		case *action.AdoptReplicaSet:
			j.Name, j.Patch = a.Name, a.Patch
		case *action.ReleaseReplicaSet:
			j.Name, j.Patch = a.Name, a.Patch
		case *action.UpdateDeployment:
			j.Deployment = a.Deployment
		case *action.UpdateDeploymentStatus:
			j.Deployment = a.Deployment
		case *action.Event:
			j.Event = &jsonEvent{Type: a.Type, Reason: a.Reason, Message: a.Message}
		}
		out.Actions = append(out.Actions, j)
	}
	return out
}

func simulateCommand(g *globals) *cobra.Command {
	var (
		svg, setImage           string
		tick, start, ready, end time.Duration
		failureRate             float64
		seed                    uint64
		failing                 []string
		maxSteps                int
		transcript              bool
	)
	cmd := &cobra.Command{
		Use:   "simulate -f FILE [--svg out.svg]",
		Short: "Simulate the rollout from the file's state and print its timeline",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, now, err := g.load(cmd)
			if err != nil {
				return err
			}
			opts := []simulate.Option{simulate.WithTick(tick), simulate.WithPodStartDelay(start), simulate.WithReadinessDelay(ready),
				simulate.WithTerminationDelay(end), simulate.WithFailureRate(failureRate), simulate.WithSeed(seed), simulate.WithMaxSteps(maxSteps)}
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
				return m.Explain(err)
			}
			out := cmd.OutOrStdout()
			if transcript {
				fmt.Fprint(out, tl.Transcript())
			} else {
				fmt.Fprintf(out, "Deployment %s, %s\n\n%s\n%s", tl.Deployment, tl.Strategy, tl.Table(), tl.Summary())
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
				return &ExitError{Code: 1, Err: fmt.Errorf("invariants broken:\n%w", err)}
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
			_, err = fmt.Fprint(cmd.OutOrStdout(), RolloutHistory(m.Deployment, m.ReplicaSets))
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
			msg, _, err := RolloutStatus(m.Deployment)
			if err != nil {
				return &ExitError{Code: 1, Err: err}
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), msg)
			return err
		},
	}
}
