package cli_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/deploysync/deploysync/examples/cli"
	"github.com/deploysync/deploysync/verdict"
)

// exitCode is the command's exit code as the binary exits: 0, the
// ExitError's code, or 1.
func exitCode(err error) int {
	var e *cli.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &e):
		return e.Code
	}
	return 1
}

// TestStatusRules runs status --rule with every rule on a file and checks
// each exit code; the texts of all six are one golden per file. The exit
// codes follow each tool's documented decision (package verdict): Helm 3
// and strict never fail; kubectl, kstatus, Helm 4 and Argo CD fail a
// rollout past its progress deadline; Helm 3 and Helm 4 do not wait for a
// paused Deployment, the others do.
func TestStatusRules(t *testing.T) {
	const done, waiting, failed = 0, cli.ExitNotDone, cli.ExitDeadlineExceeded
	for _, tt := range []struct {
		file   string
		codes  map[verdict.Tool]int
		reason string
	}{
		{file: "stuck", codes: map[verdict.Tool]int{verdict.Kubectl: failed, verdict.Kstatus: failed, verdict.Helm3: waiting,
			verdict.Helm4: failed, verdict.ArgoCD: failed, verdict.StrictTool: waiting},
			reason: "past the progress deadline: Helm 3 ignores the deadline and strict has none, so both keep waiting; the other four fail"},
		{file: "complete", codes: map[verdict.Tool]int{verdict.Kubectl: done, verdict.Kstatus: done, verdict.Helm3: done,
			verdict.Helm4: done, verdict.ArgoCD: done, verdict.StrictTool: done},
			reason: "a completed rollout is done for every tool"},
		{file: "paused", codes: map[verdict.Tool]int{verdict.Kubectl: waiting, verdict.Kstatus: waiting, verdict.Helm3: done,
			verdict.Helm4: done, verdict.ArgoCD: waiting, verdict.StrictTool: waiting},
			reason: "paused right after a template change: both Helms skip a paused Deployment; Argo CD calls it Suspended, which is not done"},
		{file: "midrollout", codes: map[verdict.Tool]int{verdict.Kubectl: waiting, verdict.Kstatus: waiting, verdict.Helm3: waiting,
			verdict.Helm4: waiting, verdict.ArgoCD: waiting, verdict.StrictTool: waiting},
			reason: "an old replica still counted: every tool waits"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			var all strings.Builder
			for _, tool := range verdict.Tools() {
				r := run(t, "status", "-f", "testdata/"+tt.file+".yaml", "--rule", string(tool))
				got := exitCode(r.err)
				if want := tt.codes[tool]; got != want {
					t.Errorf("--rule %s: exit code %d (%v), want %d: %s", tool, got, r.err, want, tt.reason)
				}
				fmt.Fprintf(&all, "$ status --rule %s\n%sexit %d\n", tool, r.stdout, got)
			}
			golden(t, "status-rules-"+tt.file+".txt", all.String())
		})
	}
}

func TestStatusFlags(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		golden  string
		errWant string
		exit    int
		reason  string
	}{
		{name: "unknown rule", args: []string{"status", "-f", "testdata/stuck.yaml", "--rule", "flux"},
			errWant: `--rule "flux": unknown; the rules are kubectl, kstatus, helm3, helm4, argocd, strict`, exit: 1,
			reason: "an unknown rule is a usage error that lists the rules"},
		{name: "rule is case-insensitive", args: []string{"status", "-f", "testdata/complete.yaml", "--rule", "ArgoCD"},
			reason: "rule names are matched as --fix names are"},
		{name: "no rule: kubectl's line", args: []string{"status", "-f", "testdata/rollout.yaml"}, golden: "status-rollout.txt",
			reason: "without --rule the output is kubectl rollout status's, as before"},
		{name: "no rule: kubectl's exit code", args: []string{"status", "-f", "testdata/stuck.yaml"},
			errWant: `deployment "web" exceeded its progress deadline`, exit: 1,
			reason: "without --rule a rollout past its deadline is exit 1, as kubectl rollout status"},
		{name: "json", args: []string{"status", "-f", "testdata/stuck.yaml", "--rule", "strict", "-o", "json"}, golden: "status-strict-stuck.json",
			exit: cli.ExitNotDone, errWant: "rule strict: not done yet",
			reason: "-o json gives the verdict, status word, message and reasons; the exit code is the rule's"},
		{name: "yaml", args: []string{"status", "-f", "testdata/stuck.yaml", "--rule", "kstatus", "-o", "yaml"}, golden: "status-kstatus-stuck.yaml",
			exit: cli.ExitDeadlineExceeded, errWant: "rule kstatus: the rollout failed",
			reason: "-o yaml has the fields of -o json"},
		{name: "json without rule", args: []string{"status", "-f", "testdata/complete.yaml", "-o", "json"}, golden: "status-complete.json",
			reason: "without --rule the JSON is kubectl's verdict"},
		{name: "watch a file", args: []string{"status", "-f", "testdata/stuck.yaml", "--watch"},
			errWant: "--watch follows a Deployment of the cluster; a file does not change", exit: 1,
			reason: "a file does not change: --watch on it is a usage error, not a loop"},
		{name: "watch -A", args: []string{"status", "-A", "--watch"},
			errWant: "--watch follows one Deployment", exit: 1,
			reason: "--watch follows one Deployment"},
		{name: "timeout without watch", args: []string{"status", "-f", "testdata/stuck.yaml", "--timeout", "5m"},
			errWant: "--timeout is for --watch", exit: 1,
			reason: "a --timeout that would not be used is a usage error, so a CI line missing --watch does not pass for a wait"},
		{name: "partial: helm3 refused", args: []string{"status", "-f", "testdata/partial-deploy.yaml", "--rule", "helm3"},
			errWant: "no verdict: helm3 reads the ReplicaSets:", exit: cli.ExitPartialInput,
			reason: "Helm 3 reads the new ReplicaSet: no verdict on a Deployment without its ReplicaSets"},
		{name: "partial: kstatus answers", args: []string{"status", "-f", "testdata/partial-deploy.yaml", "--rule", "kstatus"},
			golden: "status-kstatus-partial.txt", errWant: "rule kstatus: not done yet", exit: cli.ExitNotDone,
			reason: "kstatus reads the Deployment alone: a paused Deployment is InProgress for it, ReplicaSets or not"},
		{name: "partial: argocd answers", args: []string{"status", "-f", "testdata/partial-deploy.yaml", "--rule", "argocd"},
			golden: "status-argocd-partial.txt", errWant: "rule argocd: not done yet", exit: cli.ExitNotDone,
			reason: "Argo CD reads the Deployment alone: a paused Deployment is Suspended"},
		{name: "status -A", args: []string{"status", "-A", "-f", "testdata/namespaces.yaml", "--rule", "argocd"}, golden: "status-all-namespaces.txt",
			exit: cli.ExitNotDone, errWant: "rule argocd: not done yet: blue/web, green/web",
			reason: "-A: one row per Deployment of every namespace; the exit code is the worst row's"},
		{name: "status -A yaml", args: []string{"status", "-A", "-f", "testdata/namespaces.yaml", "-o", "yaml"}, golden: "status-all-namespaces.yaml",
			reason: "-A -o yaml: a list of verdicts; without --rule, kubectl's (waiting is exit 0, as kubectl --watch=false)"},
		{name: "diagnose -A", args: []string{"diagnose", "-A", "-f", "testdata/namespaces.yaml", "--now", now}, golden: "diagnose-all-namespaces.txt",
			reason: "diagnose -A: each Deployment's number of causes and the first"},
		{name: "diagnose -A json", args: []string{"diagnose", "-A", "-f", "testdata/namespaces.yaml", "--now", now, "-o", "json"}, golden: "diagnose-all-namespaces.json",
			reason: "diagnose -A -o json: every cause of every Deployment"},
		{name: "-A with -n", args: []string{"status", "-A", "-n", "blue", "-f", "testdata/namespaces.yaml"},
			errWant: "-A reads every namespace: drop -n blue", exit: 1,
			reason: "-A and -n contradict each other"},
		{name: "plan -A", args: []string{"plan", "-A", "-f", "testdata/namespaces.yaml", "--now", now},
			errWant: "-A works with status and diagnose only: plan needs one Deployment (a plan is one Deployment's next sync)", exit: 1,
			reason: "plan needs one Deployment"},
		{name: "history -A", args: []string{"history", "-A"},
			errWant: "history needs one Deployment (a history is one Deployment's revisions)", exit: 1,
			reason: "history needs one Deployment"},
		{name: "simulate -A", args: []string{"simulate", "-A", "--now", now},
			errWant: "simulate needs one Deployment (a simulation rolls out one Deployment)", exit: 1,
			reason: "simulate needs one Deployment"},
		{name: "plan yaml", args: []string{"plan", "-f", "testdata/rollout.yaml", "--now", now, "-o", "yaml"}, golden: "plan-rollout.yaml",
			reason: "-o yaml is the plan's JSON as YAML, objects included"},
		{name: "diagnose yaml", args: []string{"diagnose", "-f", "testdata/stuck.yaml", "--now", now, "-o", "yaml"}, golden: "diagnose-stuck.yaml",
			reason: "diagnose -o yaml"},
		{name: "history json", args: []string{"history", "-f", "testdata/stuck.yaml", "-o", "json"}, golden: "history-stuck.json",
			reason: "history -o json: the revisions kubectl lists, with change-cause and ReplicaSet"},
		{name: "history yaml", args: []string{"history", "-f", "testdata/stuck.yaml", "-o", "yaml"}, golden: "history-stuck.yaml",
			reason: "history -o yaml"},
		{name: "simulate yaml", args: []string{"simulate", "-f", "testdata/recreate.yaml", "--now", now, "-o", "yaml"}, golden: "simulate-recreate.yaml",
			reason: "simulate -o yaml: outcome, summary numbers, every step with its actions and reasons"},
		{name: "simulate json exit code", args: []string{"simulate", "-f", "testdata/paused.yaml", "--now", now, "-o", "json"}, golden: "simulate-paused.json",
			errWant: "the rollout ended Paused (exit code 6)", exit: cli.ExitPaused,
			reason: "-o json keeps simulate's exit codes"},
		{name: "simulate cache orders json", args: []string{"simulate", "-f", "testdata/paused.yaml", "--now", now, "-o", "json", "--cache-orders", "3"},
			golden: "simulate-paused-cache-orders.json", errWant: "the rollout ended Paused (exit code 6)", exit: cli.ExitPaused,
			reason: "-o json carries the other orders' sum as cacheOrders: a paused Deployment deletes nothing, so every order keeps its run"},
		{name: "simulate transcript json", args: []string{"simulate", "-f", "testdata/paused.yaml", "--now", now, "-o", "json", "--transcript"},
			errWant: "--transcript is text", exit: 1,
			reason: "the transcript has no JSON form"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.args...)
			switch {
			case tt.errWant == "" && r.err != nil:
				t.Fatalf("error: %v\nstderr: %s", r.err, r.stderr)
			case tt.errWant != "" && (r.err == nil || !strings.Contains(r.err.Error(), tt.errWant)):
				t.Fatalf("error %v, want one containing %q (%s)", r.err, tt.errWant, tt.reason)
			}
			if got := exitCode(r.err); got != tt.exit {
				t.Errorf("exit code %d, want %d (%s)", got, tt.exit, tt.reason)
			}
			if tt.golden != "" {
				golden(t, tt.golden, r.stdout)
			}
		})
	}
}

// TestStatusHelp: status's help lists the rules, the exit codes of --rule
// and what --watch and -A do. The golden stops before the global flags,
// whose kubeconfig defaults depend on $HOME.
func TestStatusHelp(t *testing.T) {
	r := run(t, "status", "--help")
	if r.err != nil {
		t.Fatal(r.err)
	}
	own, _, found := strings.Cut(r.stdout, "Global Flags:")
	if !found {
		t.Fatalf("no global flags in the help:\n%s", r.stdout)
	}
	golden(t, "help-status.txt", own)
}
