package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/deploysync/deploysync/verdict"
)

// ExitNotDone is status --rule's code when the rule's tool would keep
// waiting: at once without --watch, at --timeout with it. A rule that
// fails the rollout exits with [ExitDeadlineExceeded] (every tool's failure
// of a Deployment is its progress deadline, or for kstatus and helm4 a
// Stalled condition).
const ExitNotDone = 8

// ruleNames lists the rules of status --rule.
func ruleNames() string {
	var names []string
	for _, t := range verdict.Tools() {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}

// parseRule reads --rule as one of verdict.Tools.
func parseRule(s string) (verdict.Tool, error) {
	for _, t := range verdict.Tools() {
		if strings.EqualFold(s, string(t)) {
			return t, nil
		}
	}
	return "", fmt.Errorf("--rule %q: unknown; the rules are %s", s, ruleNames())
}

// RuleVerdict is the verdict of the tool on the manifest's Deployment, its
// ReplicaSets and pods (see package verdict).
func RuleVerdict(tool verdict.Tool, m *Manifest) verdict.Verdict {
	d := m.Deployment
	switch tool {
	case verdict.Kstatus:
		return verdict.KstatusStatus(d)
	case verdict.Helm3:
		return verdict.Helm3Ready(d, m.ReplicaSets)
	case verdict.Helm4:
		return verdict.Helm4Wait(d)
	case verdict.ArgoCD:
		return verdict.ArgoCDHealth(d)
	case verdict.StrictTool:
		return verdict.Strict(d, m.ReplicaSets, m.Pods)
	}
	return verdict.KubectlStatus(d)
}

// ReadsOnlyDeployment reports whether the tool's rule reads the Deployment
// alone (kubectl rollout status, kstatus, Helm 4, Argo CD), so that it
// answers on a file that lacks the Deployment's ReplicaSets; Helm 3 (the
// new ReplicaSet) and strict (the ReplicaSets and their pods) read more.
func ReadsOnlyDeployment(tool verdict.Tool) bool {
	switch tool {
	case verdict.Helm3, verdict.StrictTool:
		return false
	}
	return true
}

// RuleExit is the error status --rule returns for a verdict: nil when done,
// an [*ExitError] with [ExitDeadlineExceeded] when the tool fails the
// rollout, with [ExitNotDone] when it would keep waiting.
func RuleExit(v verdict.Verdict) error {
	switch {
	case v.Done:
		return nil
	case v.Failed:
		return &ExitError{Code: ExitDeadlineExceeded, Err: fmt.Errorf("rule %s: the rollout failed (exit code %d)", v.Tool, ExitDeadlineExceeded)}
	}
	return &ExitError{Code: ExitNotDone, Err: fmt.Errorf("rule %s: not done yet (exit code %d)", v.Tool, ExitNotDone)}
}

// verdictWord is done, failed or waiting.
func verdictWord(v verdict.Verdict) string {
	switch {
	case v.Done:
		return "done"
	case v.Failed:
		return "failed"
	}
	return "waiting"
}

// VerdictText is status --rule's text: "RULE WORD (STATUS): MESSAGE", the
// status word and message where the tool has them, then the reasons, one
// per line (when the message is the first of several reasons, it says how
// many instead).
func VerdictText(v verdict.Verdict) string {
	var b strings.Builder
	b.WriteString(string(v.Tool) + " " + verdictWord(v))
	if v.Status != "" {
		b.WriteString(" (" + v.Status + ")")
	}
	msg, reasons := strings.TrimSuffix(v.Message, "\n"), v.Reasons
	if len(reasons) > 0 && reasons[0] == msg {
		if len(reasons) == 1 {
			reasons = nil
		} else {
			msg = fmt.Sprintf("%d reasons", len(reasons))
		}
	}
	if msg != "" {
		b.WriteString(": " + msg)
	}
	b.WriteString("\n")
	for _, r := range reasons {
		b.WriteString("  - " + r + "\n")
	}
	return b.String()
}

// jsonVerdict is the machine-readable form of a verdict.
type jsonVerdict struct {
	Deployment string       `json:"deployment"`
	Rule       verdict.Tool `json:"rule"`
	// Verdict is done, failed or waiting.
	Verdict string   `json:"verdict"`
	Status  string   `json:"status,omitempty"`
	Message string   `json:"message,omitempty"`
	Reasons []string `json:"reasons,omitempty"`
}

func verdictJSON(m *Manifest, v verdict.Verdict) jsonVerdict {
	return jsonVerdict{Deployment: m.key(), Rule: v.Tool, Verdict: verdictWord(v),
		Status: v.Status, Message: v.Message, Reasons: v.Reasons}
}

// statusFlags are status's own flags.
type statusFlags struct {
	rule, output      string
	watch             bool
	interval, timeout time.Duration
	// tool is --rule's tool, kubectl without it; compat says --rule was
	// not given: the text and exit codes are kubectl rollout status's.
	tool   verdict.Tool
	compat bool
}

func statusCommand(g *globals) *cobra.Command {
	var f statusFlags
	cmd := &cobra.Command{
		Use:   "status (deploy/NAME | -f FILE | -A) [--rule RULE]",
		Short: "The rollout status, as kubectl or another tool says it",
		Long: `Without --rule, print what kubectl rollout status --watch=false prints for the
Deployment as it stands, and fail (exit code 1) as it does on a rollout past
its progress deadline.

--rule RULE gives the verdict of another tool's wait instead, in that tool's
words (package github.com/deploysync/deploysync/verdict): ` + ruleNames() + `.
It prints "RULE done|waiting|failed (STATUS): MESSAGE" and exits as CI needs:
  0  done: the tool's wait would end with success
  8  not done: the tool would keep waiting
  3  failed: the tool would stop with an error (the progress deadline exceeded)

--watch (a Deployment of the cluster only) reads the Deployment, its
ReplicaSets and pods every --interval and prints a line each time the verdict
changes, until the rule says done (exit 0) or failed (exit 3; 1 without
--rule), or --timeout passes (exit 8; 1 without --rule). With -o json each
verdict is one line of JSON; with -o yaml one YAML document.

-A prints one row per Deployment of every namespace of the cluster (or of the
file), and exits with the worst row's code under --rule.`,
		Example: `  kubectl deploysync status deploy/web -n shop
  kubectl deploysync status deploy/web -n shop --rule kstatus --watch \\
    --timeout 5m
  kubectl deploysync status -A --rule strict
  kubectl deploysync status -f state.yaml --rule helm3 -o yaml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(f.output); err != nil {
				return err
			}
			f.tool, f.compat = verdict.Kubectl, f.rule == ""
			if !f.compat {
				t, err := parseRule(f.rule)
				if err != nil {
					return err
				}
				f.tool = t
			}
			if f.watch {
				return g.watchStatus(cmd, args, f)
			}
			for _, name := range []string{"interval", "timeout"} {
				if cmd.Flags().Changed(name) {
					return fmt.Errorf("--%s is for --watch: add --watch, or drop --%s", name, name)
				}
			}
			if g.allNamespaces {
				return g.statusAll(cmd, args, f)
			}
			m, _, err := g.load(cmd, args)
			if err != nil {
				return err
			}
			if p := m.Partial(); p != "" {
				if !ReadsOnlyDeployment(f.tool) {
					return &ExitError{Code: ExitPartialInput, Err: fmt.Errorf("no verdict: %s reads the ReplicaSets: %s", f.tool, p)}
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "note: %s reads the Deployment alone, so its verdict holds although %s\n", f.tool, partialSummary(m))
			}
			v := RuleVerdict(f.tool, m)
			if err := writeVerdict(cmd.OutOrStdout(), m, v, f, writeStructured); err != nil {
				return err
			}
			return f.exit(v)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.rule, "rule", "", "decide as this tool's wait: "+ruleNames()+" (default: kubectl rollout status, with its exit codes)")
	fl.StringVarP(&f.output, "output", "o", "text", outputHelp)
	fl.BoolVarP(&f.watch, "watch", "w", false, "follow a Deployment of the cluster until the rule says done or failed, printing each change")
	fl.DurationVar(&f.interval, "interval", 2*time.Second, "with --watch, time between reads of the cluster")
	fl.DurationVar(&f.timeout, "timeout", 0, "with --watch, give up after this long (0: never)")
	return cmd
}

// writeVerdict prints one verdict: kubectl's own line without --rule, else
// VerdictText; structured output through write.
func writeVerdict(w io.Writer, m *Manifest, v verdict.Verdict, f statusFlags, write func(io.Writer, string, any) error) error {
	if f.output != "text" {
		return write(w, f.output, verdictJSON(m, v))
	}
	if f.compat {
		if v.Failed { // kubectl prints its error on stderr only
			return nil
		}
		_, err := io.WriteString(w, v.Message)
		return err
	}
	_, err := io.WriteString(w, wrap(VerdictText(v)))
	return err
}

// exit is the command's error for a verdict: kubectl's (its error, exit
// code 1) without --rule, else [RuleExit].
func (f statusFlags) exit(v verdict.Verdict) error {
	if f.compat {
		if v.Failed {
			return &ExitError{Code: 1, Err: errors.New(v.Message)}
		}
		return nil
	}
	return RuleExit(v)
}

// watchStatus is status --watch: it reads the Deployment named by args from
// the cluster every --interval until the verdict is done or failed or
// --timeout passes.
func (g *globals) watchStatus(cmd *cobra.Command, args []string, f statusFlags) error {
	switch {
	case g.file != "":
		return errors.New("--watch follows a Deployment of the cluster; a file does not change: drop --watch, or name the Deployment instead of -f")
	case g.allNamespaces:
		return errors.New("--watch follows one Deployment: name it (deploy/NAME) instead of -A")
	case len(args) == 0:
		return errors.New("--watch: name a Deployment (NAME or deploy/NAME) to follow")
	case f.interval <= 0:
		return fmt.Errorf("--interval %s: want a positive duration", f.interval)
	}
	name, err := deploymentArg(args[0])
	if err != nil {
		return err
	}
	if err := g.checkVersion(); err != nil {
		return err
	}
	client, source, ns, err := g.cluster()
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	read := func(ctx context.Context) (*Manifest, error) {
		return ReadCluster(ctx, client, source, ReadOptions{Namespace: ns, Deployment: name, KubernetesVersion: g.version})
	}
	return watchVerdicts(ctx, read, f, g.sleeper(), cmd.OutOrStdout(), cmd.ErrOrStderr())
}

// watchVerdicts reads the state with read, prints the verdict whenever it
// changes, and sleeps f.interval between reads until the verdict is done
// or failed, or f.timeout passes. A read whose ReplicaSets lag behind the
// Deployment (a partial state) gives no verdict, and a read that fails
// for a reason a retry may mend is retried: each is said on stderr once
// and read again.
func watchVerdicts(ctx context.Context, read func(context.Context) (*Manifest, error), f statusFlags,
	sleep func(context.Context, time.Duration) error, stdout, stderr io.Writer) error {
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	last, lastPartial, lastErr := "", "", ""
	var v verdict.Verdict
	seen := false
	for {
		m, err := read(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			return f.timedOut(v, seen)
		case err != nil && !retryable(err):
			return err
		case err != nil:
			if msg := err.Error(); msg != lastErr {
				fmt.Fprintf(stderr, "reading again in %s: %s\n", f.interval, msg)
				lastErr = msg
			}
		case m.Partial() != "" && !ReadsOnlyDeployment(f.tool):
			lastErr = ""
			if p := m.Partial(); p != lastPartial {
				fmt.Fprintln(stderr, "no verdict yet:", p)
				lastPartial = p
			}
		default:
			lastErr, lastPartial = "", ""
			v, seen = RuleVerdict(f.tool, m), true
			if key := fmt.Sprintf("%#v", v); key != last {
				last = key
				if err := writeVerdict(stdout, m, v, f, writeStreamed); err != nil {
					return err
				}
			}
			if v.Done || v.Failed {
				return f.exit(v)
			}
		}
		if err := sleep(ctx, f.interval); err != nil {
			return f.timedOut(v, seen)
		}
	}
}

// retryable says whether --watch reads again after a failed read: not
// when the Deployment is gone or the credentials are refused, which no
// retry mends; yes for the rest (a timeout, a connection reset, an
// apiserver that restarts).
func retryable(err error) bool {
	return !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) && !apierrors.IsUnauthorized(err) && !apierrors.IsBadRequest(err)
}

// timedOut is --watch's error when --timeout passed: kubectl's (exit code
// 1) without --rule, else [ExitNotDone].
func (f statusFlags) timedOut(v verdict.Verdict, seen bool) error {
	last := "no verdict"
	if seen {
		last = strings.TrimSuffix(VerdictText(v), "\n")
	}
	code := ExitNotDone
	if f.compat {
		code = 1
	}
	return &ExitError{Code: code, Err: fmt.Errorf("timed out after %s waiting for the rollout; last: %s", f.timeout, last)}
}

// sleeper is the wait between --watch's reads: g.sleep in tests, else a
// timer that stops with the context.
func (g *globals) sleeper() func(context.Context, time.Duration) error {
	if g.sleep != nil {
		return g.sleep
	}
	return func(ctx context.Context, d time.Duration) error {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		}
	}
}
