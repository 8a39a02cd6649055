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
// verdict on a file that lacks the Deployment's ReplicaSets; for status
// --rule, [ExitNotDone] when the rule's tool would keep waiting and
// [ExitDeadlineExceeded] when it fails the rollout.
package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/diagnose"
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

// SimulateExit is the error simulate returns for a finished run: nil for a
// completed rollout that held every invariant, else an [*ExitError] whose
// Code is ExitViolation when the controller broke an invariant (whatever
// the outcome) or the outcome's code.
func SimulateExit(tl *simulate.Timeline) error {
	if err := tl.Err(); err != nil {
		return &ExitError{Code: ExitViolation, Err: fmt.Errorf("the controller broke invariants (exit code %d):\n%w", ExitViolation, err)}
	}
	if code := outcomeCodes[tl.Outcome]; code != 0 {
		return &ExitError{Code: code, Err: fmt.Errorf("the rollout ended %s (exit code %d)", tl.Outcome, code)}
	}
	return nil
}

// outcomeCodes maps every outcome of a simulation to its exit code.
var outcomeCodes = map[simulate.Outcome]int{
	simulate.Complete:         0,
	simulate.DeadlineExceeded: ExitDeadlineExceeded,
	simulate.Stalled:          ExitStalled,
	simulate.StepLimit:        ExitStepLimit,
	simulate.StoppedPaused:    ExitPaused,
	simulate.Held:             0, // held at --max-updated: what was asked
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
	kube       *genericclioptions.ConfigFlags
	file       string
	namespace  string
	deployment string
	now        string
	fixes      []string
	version    string
	clock      func() time.Time
	// allNamespaces is -A: status and diagnose over every Deployment.
	allNamespaces bool
	// client, when set, is the cluster (tests); else the kubeconfig's.
	client kubernetes.Interface
	// sleep, when set, is status --watch's wait between reads (tests).
	sleep func(context.Context, time.Duration) error
}

// exitCodesHelp is the table of exit codes the help prints.
const exitCodesHelp = `Exit codes:
  0  success; for simulate, the rollout completed; for diff, no rollout
  1  an error: bad flags or input; for status, a rollout past its progress
     deadline (as kubectl rollout status)
  2  simulate: the controller broke an invariant (please report it)
  3  simulate: the rollout ended past its progress deadline; status --rule:
     the tool fails the rollout
  4  simulate: the rollout stalled (nothing left to happen, not complete)
  5  simulate: --max-steps reached while still going
  6  simulate: the Deployment is paused
  7  status --rule helm3|strict, diagnose: the file lacks ReplicaSets the
     Deployment refers to
  8  status --rule: the rule's tool would keep waiting (with --watch: at
     --timeout)
 10  diff: applying the manifest rolls out a new ReplicaSet
 11  diff: applying the manifest rolls back to an existing ReplicaSet`

// NewCommand returns the kubectl-deploysync command. clock gives the time
// when --now is not set (time.Now in the binary).
func NewCommand(stdout, stderr io.Writer, clock func() time.Time) *cobra.Command {
	return newCommand(stdout, stderr, &globals{clock: clock})
}

// newCommand is NewCommand with the globals given (a test's client and
// sleep).
func newCommand(stdout, stderr io.Writer, g *globals) *cobra.Command {
	g.kube = genericclioptions.NewConfigFlags(true)
	// -n is the root's own flag (it also filters files).
	g.kube.Namespace = nil
	root := &cobra.Command{
		Use:   "kubectl-deploysync",
		Short: "The Deployment controller's decisions, on a cluster or a file",
		Long: `kubectl deploysync runs kube-controller-manager v1.37.2's Deployment sync
(github.com/deploysync/deploysync) over a Deployment read from the cluster of
the current kubeconfig context (it only reads: the Deployment, the
ReplicaSets of its namespace and its pods), or over a file of manifests, such as
  kubectl get deploy,rs,pods -n NAMESPACE -l SELECTOR -o yaml > state.yaml
(a Deployment alone is not enough: its ReplicaSets are the controller's state).

` + exitCodesHelp,
		Example: `  kubectl deploysync plan deploy/web -n shop
  kubectl deploysync diagnose web --context prod -n shop
  kubectl get deploy,rs,pods -n shop -l app=web -o yaml |
    kubectl deploysync plan -f -
  kubectl deploysync simulate -f state.yaml --set-image web=nginx:1.29 \\
    --svg rollout.svg
  kubectl deploysync status -f state.yaml`,
		// kubectl runs the binary kubectl-deploysync as "kubectl deploysync".
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl deploysync"},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	pf := root.PersistentFlags()
	pf.StringVarP(&g.file, "filename", "f", "", "file with the Deployment, its ReplicaSets and pods (YAML documents or a v1 List; - reads stdin); without it, the command reads the Deployment named by its argument from the cluster")
	pf.BoolVarP(&g.allNamespaces, "all-namespaces", "A", false, "status and diagnose: every Deployment of every namespace of the cluster (or of the file), one row each")
	pf.StringVarP(&g.namespace, "namespace", "n", "", "the Deployment's namespace in the cluster (default: the kubeconfig context's); with -f, only objects of this namespace, and objects without one get it (default: a Deployment without namespace is in \"default\")")
	pf.StringVar(&g.deployment, "deployment", "", "name of the Deployment, if the file has several")
	pf.StringSliceVar(&g.fixes, "fix", nil, "correct known upstream bugs, by name (repeatable or comma-separated): "+fixNames())
	pf.StringVar(&g.now, "now", "", "time of the sync, RFC 3339 (default: the wall clock)")
	pf.StringVar(&g.version, "kubernetes-version", "", "decide as this Kubernetes minor's controller and kubectl: "+strings.Join(deploysync.KubernetesVersions(), ", ")+
		" (a server version such as v1.34.4-eks-1a2b3c is read as its minor; default 1.37)")
	g.kube.AddFlags(pf)
	root.AddCommand(planCommand(g), simulateCommand(g), historyCommand(g), statusCommand(g), diagnoseCommand(g), diffCommand(g), versionCommand(g))
	finishHelp(root)
	return root
}

// load reads the file and reports its notes on stderr; it returns the time
// of --now, or of the clock without it.
func (g *globals) load(cmd *cobra.Command, args []string) (*Manifest, metav1.Time, error) {
	switch {
	case g.allNamespaces:
		return nil, metav1.Time{}, refuseAllNamespaces(cmd)
	case g.file == "" && len(args) == 0:
		return nil, metav1.Time{}, errors.New("name a Deployment (NAME or deploy/NAME) to read it from the cluster, or give -f FILE")
	case g.file != "" && len(args) > 0:
		return nil, metav1.Time{}, fmt.Errorf("give either -f FILE or a Deployment (%s), not both", args[0])
	case len(args) > 1:
		return nil, metav1.Time{}, fmt.Errorf("one Deployment at a time, not %d", len(args))
	}
	var now time.Time
	if g.now != "" {
		t, err := time.Parse(time.RFC3339, g.now)
		if err != nil {
			return nil, metav1.Time{}, fmt.Errorf("--now: %w", err)
		}
		now = t
	} else if cmd.Name() == "plan" || cmd.Name() == "simulate" || cmd.Name() == "diagnose" {
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
	if len(args) == 1 {
		m, err = g.readCluster(cmd, args[0])
	} else if g.file == "-" {
		m, err = ReadManifest(cmd.InOrStdin(), "stdin", g.readOptions())
	} else {
		m, err = LoadManifest(g.file, g.readOptions())
	}
	if err != nil {
		return nil, metav1.Time{}, err
	}
	printNotes(cmd.ErrOrStderr(), m)
	if p := m.Partial(); p != "" && cmd.Name() != "status" {
		fmt.Fprintln(cmd.ErrOrStderr(), wrap("warning: "+p))
	}
	return m, metav1.NewTime(now.UTC()), nil
}

// printNotes writes the manifest's notes on w, wrapped.
func printNotes(w io.Writer, m *Manifest) {
	for _, n := range m.Notes {
		fmt.Fprintln(w, wrapIndent("note: "+n, "      "))
	}
}

// readCluster reads the Deployment named by arg from the cluster of the
// kubeconfig flags.
func (g *globals) readCluster(cmd *cobra.Command, arg string) (*Manifest, error) {
	name, err := deploymentArg(arg)
	if err != nil {
		return nil, err
	}
	client, source, ns, err := g.cluster()
	if err != nil {
		return nil, err
	}
	return ReadCluster(cmd.Context(), client, source, ReadOptions{Namespace: ns, Deployment: name, KubernetesVersion: g.version})
}

// readOptions are the flags that choose what a stream is read for.
func (g *globals) readOptions() ReadOptions {
	return ReadOptions{Namespace: g.namespace, Deployment: g.deployment, KubernetesVersion: g.version}
}

// cluster returns a client of the cluster of the kubeconfig flags, the
// cluster's name for messages (its context) and the namespace of -n, else
// the context's.
func (g *globals) cluster() (kubernetes.Interface, string, string, error) {
	if g.client != nil {
		ns := g.namespace
		if ns == "" {
			ns = "default"
		}
		return g.client, "the test cluster", ns, nil
	}
	loader := g.kube.ToRawKubeConfigLoader()
	ns := g.namespace
	if ns == "" {
		var err error
		if ns, _, err = loader.Namespace(); err != nil {
			return nil, "", "", fmt.Errorf("the kubeconfig's namespace: %w", err)
		}
	}
	cfg, err := g.kube.ToRESTConfig()
	if err != nil {
		return nil, "", "", fmt.Errorf("the kubeconfig: %w", err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, "", "", err
	}
	source := "the cluster at " + cfg.Host
	if raw, err := loader.RawConfig(); err == nil {
		ctxName := raw.CurrentContext
		if g.kube.Context != nil && *g.kube.Context != "" {
			ctxName = *g.kube.Context
		}
		if ctxName != "" {
			source = "context " + ctxName
		}
	}
	return client, source, ns, nil
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
		Use:   "plan (deploy/NAME | -f FILE)",
		Short: "What the controller would do now, with the reason of each write",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			m, now, err := g.load(cmd, args)
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
			if output != "text" {
				return writePlan(cmd.OutOrStdout(), output, plan, why)
			}
			text := plan.String()
			if why != "" {
				text += "\n" + why
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), wrap(text))
			return err
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", outputHelp)
	return cmd
}

// writePlan writes the library's JSON form of the plan (see
// deploysync.Plan.MarshalJSON: a kind per action, reasons as data, objects
// with apiVersion and kind so they can be fed back), indented, with the
// CLI's "note" added: why nothing is done, or why the plan requeues at
// once. As YAML (-o yaml) it is the same fields.
func writePlan(w io.Writer, output string, p deploysync.Plan, note string) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if note != "" {
		n, err := json.Marshal(note)
		if err != nil {
			return err
		}
		b = append(append(append(b[:len(b)-1], `,"note":`...), n...), '}')
	}
	if output == "yaml" {
		y, err := yaml.JSONToYAML(b)
		if err != nil {
			return err
		}
		_, err = w.Write(y)
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

func simulateCommand(g *globals) *cobra.Command {
	var (
		svg                     string
		setImage                []string
		tick, start, ready, end time.Duration
		stagger                 time.Duration
		failureRate             float64
		seed, cacheOrder        uint64
		failing                 []string
		refused                 []string
		refusedRS               string
		refusedUntil            time.Duration
		podQuota                string
		maxSteps                int
		maxPods                 int64
		nodes, cacheOrders      int
		transcript              bool
		maxUpdated              string
		output                  string
	)
	cmd := &cobra.Command{
		Use:   "simulate (deploy/NAME | -f FILE) [--svg out.svg]",
		Short: "Simulate the rollout from the state and print its timeline",
		Long: `Simulate the rollout from the file's state: pods start, become ready and
terminate as the flags say, and the controller syncs whenever something
changed. The table shows every step where something visible happened; the
invariants hold the controller to what it does from the input onward (a state
the input already breaks is reported as such, not as the controller's fault).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			if transcript && output != "text" {
				return fmt.Errorf("--transcript is text: drop it or -o %s", output)
			}
			m, now, err := g.load(cmd, args)
			if err != nil {
				return err
			}
			if err := checkPodLimit(m, maxPods); err != nil {
				return err
			}
			fixes, _ := g.syncFixes()
			opts := []simulate.Option{simulate.WithTick(tick), simulate.WithPodStartDelay(start), simulate.WithReadinessDelay(ready),
				simulate.WithTerminationDelay(end), simulate.WithReadyStagger(stagger), simulate.WithFailureRate(failureRate), simulate.WithSeed(seed),
				simulate.WithMaxSteps(maxSteps), simulate.WithMaxPods(maxPods), simulate.WithNodes(nodes), simulate.WithSyncOptions(g.syncOptions()...)}
			switch {
			case cacheOrders < 0:
				return fmt.Errorf("--cache-orders %d: want how many other orders to run, 0 or more", cacheOrders)
			case cacheOrders > 0 && cmd.Flags().Changed("cache-order"):
				return fmt.Errorf("--cache-orders runs seeds 1 to %d beside the run in creation order: drop --cache-order", cacheOrders)
			case cacheOrders > 0 && transcript:
				return fmt.Errorf("--cache-orders sums up other runs beside the table: drop --transcript, or show one order's with --cache-order SEED")
			case cmd.Flags().Changed("cache-order"):
				opts = append(opts, simulate.WithCacheOrder(cacheOrder))
			}
			if maxUpdated != "" {
				limit, err := parseMaxUpdated(m.State(now), maxUpdated)
				if err != nil {
					return err
				}
				opts = append(opts, simulate.WithSyncOptions(limit))
			}
			if g.version != "" {
				opts = append(opts, simulate.WithKubernetesVersion(g.version))
			}
			for _, img := range failing {
				opts = append(opts, simulate.WithFailingImage(img))
			}
			switch {
			case refusedUntil < 0:
				return fmt.Errorf("--refused-until %v: want a duration from the start, not below 0 (0: the refusal never ends)", refusedUntil)
			case refusedUntil > 0 && len(refused) == 0:
				return fmt.Errorf("--refused-until %v: no --refused-image to end", refusedUntil)
			}
			for _, r := range refused {
				img, msg := parseRefused(r)
				opts = append(opts, simulate.WithRefusedImageUntil(img, msg, refusedUntil))
			}
			if refusedRS != "" {
				until, msg, err := parseRefusedReplicaSets(refusedRS)
				if err != nil {
					return err
				}
				opts = append(opts, simulate.WithRefusedReplicaSets(until, msg))
			}
			if podQuota != "" {
				name, pods, err := parsePodQuota(podQuota)
				if err != nil {
					return err
				}
				opts = append(opts, simulate.WithPodQuota(name, pods))
			}
			if len(setImage) > 0 {
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
			var spread *cacheSpread
			if cacheOrders > 0 {
				if spread, err = runCacheOrders(m.State(now), opts, tl, cacheOrders, progress(cmd.ErrOrStderr(), cacheOrders, time.Now)); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			note := outcomeNote(tl, fixes)
			switch {
			case output != "text":
				js := timelineJSON(tl, note)
				js.CacheOrders = spread
				if err := writeStructured(out, output, js); err != nil {
					return err
				}
			case transcript:
				fmt.Fprint(out, wrap(tl.Transcript()))
			default:
				fmt.Fprintf(out, "%s\n\n%s\n%s", wrap("Deployment "+tl.Deployment+", "+tl.Strategy), fitTimeline(tl.Table()), wrapIndent(tl.Summary(), "                "))
				if spread != nil {
					fmt.Fprintf(out, "%s\n", wrapIndent("cache orders:   "+spread.text(), "                "))
				}
			}
			if note != "" && output == "text" {
				fmt.Fprintf(out, "%s\n", wrapIndent("why:            "+indent(note, "                "), "                "))
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
			return SimulateExit(tl)
		},
	}
	f := cmd.Flags()
	f.StringVar(&svg, "svg", "", "also write an SVG chart of the replicas, pods and available pods over time")
	f.StringSliceVar(&setImage, "set-image", nil, "change images at the start as kubectl set image does: CONTAINER=IMAGE (repeatable or comma-separated; init containers too), or '*=IMAGE' for every container")
	f.DurationVar(&tick, "tick", 10*time.Millisecond, "simulated time grid: every step falls on a whole tick after the start (10ms is about a real control plane's hop from one controller to the next)")
	f.DurationVar(&start, "start-delay", 2*time.Second, "time from a pod's creation until it runs")
	f.DurationVar(&ready, "readiness-delay", 3*time.Second, "time from running until ready")
	f.DurationVar(&end, "termination-delay", 5*time.Second, "time a deleted pod lingers as terminating")
	f.DurationVar(&stagger, "ready-stagger", 0, "pods become ready one at a time, at least this far apart, as a kubelet reporting one pod at a time (0: the pods of a batch become ready together)")
	f.Float64Var(&failureRate, "failure-rate", 0, "probability that a new pod never becomes ready")
	f.Uint64Var(&seed, "seed", 0, "seed of the failure draws")
	f.Uint64Var(&cacheOrder, "cache-order", 0, "the ReplicaSet controller ranks each ReplicaSet's pods for deletion in an order drawn from this seed, as its informer lists them in a map's order (default: the order they were created); where a deletion is marked tied or not ranked after kept pods, another seed can delete other pods")
	f.IntVar(&cacheOrders, "cache-orders", 0, "also run the rollout in this many other cache orders (--cache-order 1 to N) and sum up what they change: the range of peak pods, lowest availability and duration, and how many delete this run's very pods")
	f.StringArrayVar(&failing, "failing-image", nil, "pods of this image never become ready (repeatable)")
	f.StringArrayVar(&refused, "refused-image", nil, "the apiserver refuses pods of this image, as an admission policy or webhook does: IMAGE or IMAGE=MESSAGE, the apiserver's error (repeatable)")
	f.DurationVar(&refusedUntil, "refused-until", 0, "the refusals of --refused-image end this long after the start, as a policy lifted does (0: never); the ReplicaSet controller makes the pods at its first retry after")
	f.StringVar(&refusedRS, "refused-replicasets", "", "the apiserver refuses the new ReplicaSet, as a full ResourceQuota on count/replicasets.apps does, until this long after the start (0: to the end): UNTIL or UNTIL=MESSAGE, the apiserver's error")
	f.StringVar(&podQuota, "pod-quota", "", "a ResourceQuota on the namespace's pods, which counts terminating pods until gone: PODS or NAME=PODS (the quota's name, default pods); the creates past it are refused and retried with backoff")
	f.IntVar(&maxSteps, "max-steps", 100_000, "step limit")
	f.Int64Var(&maxPods, "max-pods", 1_000_000, "most pods the simulated world may hold (memory grows with it)")
	f.IntVar(&nodes, "nodes", 1, "nodes the pods spread over (each new pod on the node with the fewest of the Deployment's pods; a scale-down deletes first from the nodes with the most)")
	f.BoolVar(&transcript, "transcript", false, "print every step's actions with their reasons and conditions")
	f.StringVarP(&output, "output", "o", "text", outputHelp+" (json and yaml: the outcome, summary numbers and every step with its actions and reasons)")
	f.StringVar(&maxUpdated, "max-updated", "", `hold the rollout at this many updated replicas, an integer or a percentage of spec.replicas ("30%"; deploysync.WithLimits)`)
	return cmd
}

// refusedDefault is the apiserver's error for --refused-image without one.
const refusedDefault = "pods refused by admission (simulated)"

// parseRefused reads --refused-image: IMAGE or IMAGE=MESSAGE (an image
// reference holds no "=").
func parseRefused(v string) (image, message string) {
	image, message, ok := strings.Cut(v, "=")
	if !ok || message == "" {
		message = refusedDefault
	}
	return image, message
}

// refusedRSDefault is the apiserver's error for --refused-replicasets
// without one.
const refusedRSDefault = "replicasets.apps is forbidden: exceeded quota: count/replicasets.apps (simulated)"

// parseRefusedReplicaSets reads --refused-replicasets: UNTIL or
// UNTIL=MESSAGE, UNTIL a duration not below 0.
func parseRefusedReplicaSets(v string) (time.Duration, string, error) {
	d, message, ok := strings.Cut(v, "=")
	if !ok || message == "" {
		message = refusedRSDefault
	}
	until, err := time.ParseDuration(d)
	if err != nil || until < 0 {
		return 0, "", fmt.Errorf("--refused-replicasets %q: want UNTIL or UNTIL=MESSAGE, UNTIL a duration from the start such as 7s, or 0 for the whole run", v)
	}
	return until, message, nil
}

// parsePodQuota reads --pod-quota: PODS or NAME=PODS, PODS a whole
// number not below 0.
func parsePodQuota(v string) (string, int64, error) {
	name, n, ok := strings.Cut(v, "=")
	if !ok {
		name, n = "pods", v
	}
	pods, err := strconv.ParseInt(n, 10, 64)
	if err != nil || pods < 0 || name == "" {
		return "", 0, fmt.Errorf("--pod-quota %q: want PODS or NAME=PODS, PODS a whole number of pods not below 0 (the quota's hard pods)", v)
	}
	return name, pods, nil
}

// parseMaxUpdated reads --max-updated as deploysync.Limits.MaxUpdated and
// checks it as Sync will, so a bad value is the flag's error.
func parseMaxUpdated(s deploysync.State, v string) (deploysync.Option, error) {
	x := intstr.Parse(v)
	opt := deploysync.WithLimits(deploysync.Limits{MaxUpdated: &x})
	var le *deploysync.LimitError
	if _, err := deploysync.Sync(s, opt); errors.As(err, &le) {
		return nil, fmt.Errorf("--max-updated %q: %s", v, le.Detail)
	}
	return opt, nil
}

// parseSetImage reads --set-image's pairs as `kubectl set image` reads its
// arguments (cmdutil.ParsePairs): NAME=IMAGE, a later pair for the same
// name wins, "*" stands for every container and init container and cannot
// be combined with other pairs. The change sets the image of the named
// containers and init containers, and fails (as kubectl does) when a name
// matches none.
func parseSetImage(pairs []string) (simulate.Change, error) {
	images := map[string]string{}
	var names, bad []string
	for _, p := range pairs {
		name, img, ok := strings.Cut(p, "=")
		if !ok || name == "" {
			bad = append(bad, p)
			continue
		}
		if _, seen := images[name]; !seen {
			names = append(names, name)
		}
		images[name] = img
	}
	switch {
	case len(bad) > 0:
		return simulate.Change{}, fmt.Errorf("--set-image: invalid image format: %s: want CONTAINER=IMAGE or '*=IMAGE'", strings.Join(bad, ", "))
	case len(names) == 0:
		return simulate.Change{}, errors.New("--set-image: at least one image update is required: CONTAINER=IMAGE or '*=IMAGE'")
	case len(names) > 1 && images["*"] != "":
		return simulate.Change{}, errors.New("--set-image: all containers are already specified by *, but saw more than one container_name=container_image pairs")
	}
	var desc []string
	for _, n := range names {
		desc = append(desc, n+"="+images[n])
	}
	return simulate.Change{Description: "set image " + strings.Join(desc, " "), Edit: func(d *appsv1.Deployment) error {
		spec := &d.Spec.Template.Spec
		var missing []string
		for _, n := range names {
			found := setImages(spec.InitContainers, n, images[n])
			if setImages(spec.Containers, n, images[n]) {
				found = true
			}
			if !found {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("set image: unable to find container named %s", strings.Join(quoteAll(missing), ", "))
		}
		return nil
	}}, nil
}

// setImages sets the image of the containers named name ("*": all) and
// reports whether one was.
func setImages(cs []corev1.Container, name, image string) bool {
	found := false
	for i := range cs {
		if name == "*" || cs[i].Name == name {
			cs[i].Image, found = image, true
		}
	}
	return found
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Quote(x)
	}
	return out
}

func historyCommand(g *globals) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "history (deploy/NAME | -f FILE)",
		Short: "The rollout history, as kubectl rollout history prints it",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			m, _, err := g.load(cmd, args)
			if err != nil {
				return err
			}
			if output != "text" {
				h, err := historyJSON(m.Deployment, m.ReplicaSets)
				if err != nil {
					return err
				}
				return writeStructured(cmd.OutOrStdout(), output, h)
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), RolloutHistoryFor(g.kubernetesVersion(), m.Deployment, m.ReplicaSets))
			return err
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", outputHelp)
	return cmd
}

func diagnoseCommand(g *globals) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "diagnose (deploy/NAME | -f FILE)",
		Short: "What holds the rollout back, and what would unblock it",
		Long: `Say what holds the rollout back, most important first: each cause with its
numbers and what would unblock it. A completed rollout has none. Like status,
diagnose refuses a file that lacks ReplicaSets the Deployment refers to
(exit code 7).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			if g.allNamespaces {
				return g.diagnoseAll(cmd, args, output)
			}
			m, now, err := g.load(cmd, args)
			if err != nil {
				return err
			}
			if p := m.Partial(); p != "" {
				return &ExitError{Code: ExitPartialInput, Err: fmt.Errorf("no diagnosis: %s", p)}
			}
			causes, err := diagnose.Rollout(m.State(now), g.syncOptions()...)
			if err != nil {
				return m.Explain(err)
			}
			if output != "text" {
				if causes == nil {
					causes = []diagnose.Cause{}
				}
				return writeStructured(cmd.OutOrStdout(), output, jsonDiagnosis{Deployment: m.Deployment.Namespace + "/" + m.Deployment.Name, Causes: causes})
			}
			w := cmd.OutOrStdout()
			if len(causes) == 0 {
				_, err = fmt.Fprintf(w, "deployment %q: rolled out, nothing holds it back\n", m.Deployment.Name)
				return err
			}
			for i, c := range causes {
				if _, err := fmt.Fprintln(w, wrap(fmt.Sprintf("%d. %s: %s\n   unblock: %s", i+1, c.Kind, c.Message(), c.Unblock))); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", outputHelp)
	return cmd
}
