package cli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/util/homedir"

	"github.com/deploysync/deploysync/examples/cli"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/simulate"
)

// now is the time every test passes with --now; the clock must not be read.
const now = "2026-11-29T12:00:00Z"

func noClock() time.Time { panic("the wall clock was read although --now was given") }

type result struct {
	stdout, stderr string
	err            error
}

func run(t *testing.T, args ...string) result {
	t.Helper()
	return runIn(t, "", args...)
}

// runIn runs the command with stdin.
func runIn(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := cli.NewCommand(&out, &errOut, noClock)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetArgs(args)
	err := cmd.Execute()
	return result{stdout: out.String(), stderr: errOut.String(), err: err}
}

// golden compares got with testdata/golden/<name>, or with -update (the
// library's testutil flag) rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "golden", name), got)
}

func TestCommands(t *testing.T) {
	for _, tt := range []struct {
		name   string
		args   []string
		golden string // stdout golden file; "" = no golden
		stderr string // must be contained in stderr
		// stderrNot must not be contained in stderr ("" = no check).
		stderrNot string
		errWant   string // must be contained in the error; "" = success
		exit      int    // the ExitError code, if any
		reason    string
	}{
		{name: "plan", args: []string{"plan", "-f", "testdata/rollout.yaml", "--now", now}, golden: "plan-rollout.txt",
			reason: "a kubectl get -o yaml List right after kubectl set image: create the new ReplicaSet within maxSurge, scale the old one down"},
		{name: "plan as 1.34", args: []string{"plan", "-f", "testdata/rollout.yaml", "--now", now, "--kubernetes-version", "v1.34.4-eks-1a2b3c"}, golden: "plan-rollout-1.34.txt",
			reason: "--kubernetes-version decides as that minor: the new ReplicaSet gets 1.34's pod-template-hash, the status no terminatingReplicas (gate off in 1.34)"},
		{name: "unsupported version", args: []string{"plan", "-f", "testdata/rollout.yaml", "--now", now, "--kubernetes-version", "1.32"},
			errWant: `--kubernetes-version: deploysync: Kubernetes version "1.32": minor 32 is not supported; supported minors: 1.33, 1.34, 1.35, 1.36, 1.37`,
			reason:  "an unsupported minor is refused before any work, listing the supported ones"},
		{name: "simulate as 1.33", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now, "--kubernetes-version", "1.33"}, golden: "simulate-rollout-1.33.txt",
			reason: "simulate takes the minor too"},
		{name: "plan json", args: []string{"plan", "-f", "testdata/rollout.yaml", "--now", now, "-o", "json"}, golden: "plan-rollout.json",
			reason: "-o json gives the same plan to machines, objects included"},
		{name: "plan handwritten", args: []string{"plan", "-f", "testdata/handwritten.yaml", "--now", now}, golden: "plan-handwritten.txt",
			stderr: "never passed an apiserver: filled in the defaults of the Kubernetes 1.37 apiserver for every unset field",
			reason: "a Deployment written by hand is defaulted, and the CLI says so on stderr"},
		{name: "plan recreate", args: []string{"plan", "-f", "testdata/recreate.yaml", "--now", now}, golden: "plan-recreate.txt",
			reason: "Recreate reads the pods: a terminating old pod holds the new ReplicaSet back"},
		{name: "simulate", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now}, golden: "simulate-rollout.txt",
			reason: "the rollout of the List, step by step, within 5 pods and with at least 3 available"},
		{name: "simulate max-updated", args: []string{"simulate", "-f", "testdata/complete.yaml", "--now", now, "--set-image", "shop=registry.example/shop:13", "--max-updated", "30%"},
			golden: "simulate-max-updated.txt",
			reason: "--max-updated 30% holds the rollout at 30% of spec.replicas rounded up (Progressing RolloutLimited); held is what was asked, exit 0"},
		{name: "simulate bad max-updated", args: []string{"simulate", "-f", "testdata/complete.yaml", "--now", now, "--max-updated", "-1"},
			errWant: `--max-updated "-1": must not be negative`,
			reason:  "a negative limit is refused as the flag's error, naming the value"},
		{name: "simulate stuck", args: []string{"simulate", "-f", "testdata/stuck.yaml", "--now", now, "--failing-image", "nginx:broken"},
			golden: "simulate-stuck.txt", errWant: "the rollout ended ProgressDeadlineExceeded (exit code 3)", exit: cli.ExitDeadlineExceeded,
			reason: "a broken image never becomes ready: the rollout stays past its progress deadline, which CI sees as exit code 3"},
		{name: "simulate refused", args: []string{"simulate", "-f", "testdata/complete.yaml", "--now", now, "--set-image", "shop=registry.example/shop:13",
			"--refused-image", `registry.example/shop:13=admission webhook "images.example.com" denied the request: unsigned image`, "-o", "json"},
			golden: "simulate-refused.json", errWant: "the rollout ended ProgressDeadlineExceeded (exit code 3)", exit: cli.ExitDeadlineExceeded,
			reason: "pods an admission webhook refuses are never made: the new ReplicaSet gets ReplicaFailure, the JSON lists the refusal with the apiserver's words, and the rollout times out (exit 3)"},
		{name: "simulate refused until", args: []string{"simulate", "-f", "testdata/complete.yaml", "--now", now, "--set-image", "shop=registry.example/shop:13",
			"--refused-image", `registry.example/shop:13=admission webhook "images.example.com" denied the request: unsigned image`, "--refused-until", "7s", "-o", "json"},
			golden: "simulate-refused-until.json",
			reason: "the refusal ends at 7s: the JSON lists the refusal, then the ReplicaSet controller's retry that makes the pods (admitted: the retry's time, its failed syncs before), and the rollout completes"},
		{name: "simulate pod quota", args: []string{"simulate", "-f", "testdata/complete.yaml", "--now", now, "--set-image", "shop=registry.example/shop:13",
			"--pod-quota", "4", "--transcript"},
			golden: "simulate-pod-quota.txt",
			reason: "a pod quota of the 3 replicas and the surge pod: the first new pod fits, each next one is refused until the old pod deleted for the last is gone (the quota counts terminating pods), then comes at the ReplicaSet controller's next retry"},
		{name: "simulate pod quota deadlock", args: []string{"simulate", "-f", "testdata/complete.yaml", "--now", now, "--set-image", "shop=registry.example/shop:13",
			"--pod-quota", "pods=3"},
			golden: "simulate-pod-quota-deadlock.txt", errWant: "the rollout ended ProgressDeadlineExceeded (exit code 3)", exit: cli.ExitDeadlineExceeded,
			reason: "a pod quota of just the 3 replicas under maxUnavailable 0 (25% of 3, rounded down): the surge pod is refused and no old pod is deleted, a deadlock to the progress deadline (exit 3)"},
		{name: "simulate pod quota, bad", args: []string{"simulate", "-f", "testdata/complete.yaml", "--now", now, "--pod-quota", "pods=-1"},
			errWant: `--pod-quota "pods=-1": want PODS or NAME=PODS`,
			reason:  "a negative quota is the flag's error, naming the value"},
		{name: "simulate refused until, no image", args: []string{"simulate", "-f", "testdata/complete.yaml", "--now", now, "--refused-until", "7s"},
			errWant: `--refused-until 7s: no --refused-image to end`,
			reason:  "an end of a refusal that was never asked for is a mistake, named"},
		{name: "simulate replicasets refused", args: []string{"simulate", "-f", "testdata/complete.yaml", "--now", now, "--set-image", "shop=registry.example/shop:13",
			"--refused-replicasets", "0", "-o", "json"},
			golden: "simulate-refused-replicasets.json", errWant: "the rollout ended Stalled (exit code", exit: cli.ExitStalled,
			reason: "a full quota on ReplicaSets refuses the new one for the whole run: 16 failed syncs, each with its retry, the last dropped, and the why says a change of the Deployment brings it back"},
		{name: "simulate replicasets refused, bad until", args: []string{"simulate", "-f", "testdata/complete.yaml", "--now", now, "--refused-replicasets", "soon"},
			errWant: `--refused-replicasets "soon": want UNTIL or UNTIL=MESSAGE`,
			reason:  "a value that is no duration is the flag's error, naming the value and the form"},
		{name: "simulate paused", args: []string{"simulate", "-f", "testdata/paused.yaml", "--now", now}, golden: "simulate-paused.txt",
			errWant: "the rollout ended Paused (exit code 6)", exit: cli.ExitPaused,
			reason: "a Deployment paused right after its template changed rolls nothing out: CI sees exit code 6, not a success"},
		{name: "simulate step limit", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now, "--max-steps", "3"},
			golden: "simulate-step-limit.txt", errWant: "the rollout ended StepLimit (exit code 5)", exit: cli.ExitStepLimit,
			reason: "a run cut short by --max-steps while the rollout still goes is exit code 5, and the summary says which flag to raise"},
		{name: "diagnose stuck", args: []string{"diagnose", "-f", "testdata/stuck.yaml", "--now", now}, golden: "diagnose-stuck.txt",
			reason: "a rollout past its deadline: the deadline first, then the new pods that are not ready and the two fenceposts they hold shut"},
		{name: "diagnose complete", args: []string{"diagnose", "-f", "testdata/complete.yaml", "--now", now}, golden: "diagnose-complete.txt",
			reason: "a completed rollout has nothing holding it back"},
		{name: "diagnose json", args: []string{"diagnose", "-f", "testdata/rollout.yaml", "--now", now, "-o", "json"}, golden: "diagnose-rollout.json",
			reason: "right after kubectl set image: nothing blocks, the next sync acts; the same causes as JSON for tools"},
		{name: "diagnose partial", args: []string{"diagnose", "-f", "testdata/partial-deploy.yaml", "--now", now},
			errWant: "no diagnosis: testdata/partial-deploy.yaml holds only part of Deployment store/cart", exit: cli.ExitPartialInput,
			reason: "a Deployment without its ReplicaSets gets no diagnosis, as it gets no status verdict"},
		{name: "simulate recreate", args: []string{"simulate", "-f", "testdata/recreate.yaml", "--now", now, "--transcript"},
			golden: "simulate-recreate.txt",
			reason: "the transcript shows every step's actions with their reasons"},
		{name: "simulate nodes transcript", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now, "--nodes", "3", "--transcript"},
			golden: "simulate-rollout-nodes.txt",
			reason: "over 3 nodes the transcript names the old pods each scale-down deleted, with their node and rank"},
		{name: "simulate cache order", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now, "--nodes", "3", "--transcript", "--cache-order", "2"},
			golden: "simulate-rollout-nodes-cache-order.txt",
			reason: "the run of simulate-rollout-nodes.txt with the pods listed in seed 2's order: the same steps and numbers; at the first deletion marked tied with 1 kept the other pod of the tie goes, and the later deletions then take pods of other nodes (seed 3 lists them as creation order does)"},
		{name: "simulate cache orders", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now, "--nodes", "3", "--cache-orders", "8"},
			golden: "simulate-rollout-nodes-cache-orders.txt",
			reason: "the run of simulate-rollout-nodes.txt and 8 other cache orders beside it: every order keeps its figures, and only seed 3 deletes its very pods (seed 3 lists them as creation order does, see simulate cache order)"},
		{name: "simulate cache orders negative", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now, "--cache-orders", "-1"},
			errWant: "--cache-orders -1: want how many other orders to run, 0 or more",
			reason:  "a count of runs"},
		{name: "simulate cache orders and one order", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now, "--cache-orders", "4", "--cache-order", "2"},
			errWant: "--cache-orders runs seeds 1 to 4 beside the run in creation order: drop --cache-order",
			reason:  "the other orders are compared with the run in creation order, so the main run takes no seed"},
		{name: "simulate cache orders transcript", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now, "--cache-orders", "4", "--transcript"},
			errWant: "--cache-orders sums up other runs beside the table: drop --transcript",
			reason:  "the spread is a summary line, a transcript has no summary"},
		{name: "simulate ready stagger", args: []string{"simulate", "-f", "testdata/whatif-10.yaml", "--now", now, "--set-image", "shop=registry.example/shop:13", "--tick", "100ms", "--ready-stagger", "400ms"},
			golden: "simulate-stagger.txt",
			reason: "with pods ready 400ms apart the controller reacts to each ready pod: 15 scales in 49 syncs, where without --ready-stagger the same run makes 7 in 17 (a batch becomes ready together)"},
		{name: "simulate negative stagger", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now, "--ready-stagger", "-1s"},
			errWant: "ready stagger -1s must not be negative",
			reason:  "a stagger is a spacing"},
		{name: "simulate zero nodes", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now, "--nodes", "0"},
			errWant: "node count 0 must be positive",
			reason:  "a run needs a node"},
		{name: "history", args: []string{"history", "-f", "testdata/stuck.yaml"}, golden: "history-stuck.txt",
			reason: "kubectl rollout history: revisions ascending with their change-cause"},
		{name: "history none", args: []string{"history", "-f", "testdata/handwritten.yaml"}, golden: "history-handwritten.txt",
			reason: "a Deployment without ReplicaSets has no history"},
		{name: "status observed later", args: []string{"status", "-f", "testdata/rollout.yaml"}, golden: "status-rollout.txt",
			reason: "generation 2 is not observed yet"},
		{name: "status deadline", args: []string{"status", "-f", "testdata/stuck.yaml"}, errWant: `deployment "web" exceeded its progress deadline`, exit: 1,
			reason: "kubectl rollout status fails on ProgressDeadlineExceeded"},
		{name: "unknown field", args: []string{"plan", "-f", "testdata/bad-field.yaml", "--now", now},
			errWant: `testdata/bad-field.yaml: line 1: Deployment hello: strict decoding error: unknown field "spec.replicaz"`,
			reason:  "a typo in a field name is an error naming the document and the field"},
		{name: "invalid value", args: []string{"plan", "-f", "testdata/bad-value.yaml", "--now", now},
			errWant: "testdata/bad-value.yaml: line 1, items[1]: ReplicaSet shop/web-5c8597c5fb: spec.replicas: invalid -1",
			reason:  "Sync's InputError is traced back to the List item it came from"},
		{name: "invalid value simulate", args: []string{"simulate", "-f", "testdata/bad-value.yaml", "--now", now},
			errWant: "line 1, items[1]: ReplicaSet shop/web-5c8597c5fb: spec.replicas",
			reason:  "simulate validates the same way"},
		{name: "two deployments", args: []string{"plan", "-f", "testdata/two.yaml", "--now", now},
			errWant: "2 Deployments (hello, world): choose one with --deployment",
			reason:  "the CLI does not guess between Deployments"},
		{name: "pick a deployment", args: []string{"plan", "-f", "testdata/two.yaml", "--deployment", "world", "--now", now},
			golden: "plan-two-world.txt", stderr: "note: skipped 1 object that is not a Deployment, ReplicaSet or Pod: 1 Service (v1)",
			reason: "--deployment picks one; other kinds are skipped with a note"},
		{name: "partial: a Deployment alone", args: []string{"plan", "-f", "testdata/partial-deploy.yaml", "--now", now},
			golden: "plan-partial-deploy.txt",
			stderr: "warning: testdata/partial-deploy.yaml holds only part of Deployment store/cart:\n" +
				"  - its status counts 2 replicas (2 available) but the input has none of its ReplicaSets\n" +
				"  - it is at revision 3 but the input has no ReplicaSet of revision 3\n",
			reason: "kubectl get deploy NAME -o yaml has no ReplicaSets: the plan (a status of 0 replicas) is printed, with a warning that says why it cannot be trusted"},
		{name: "partial: the fetch command", args: []string{"plan", "-f", "testdata/partial-deploy.yaml", "--now", now},
			stderr: "Fetch the Deployment with its ReplicaSets and pods:\n    kubectl get deploy,rs,pods -n store -l app=cart -o yaml > state.yaml",
			reason: "the warning gives the command with the Deployment's namespace and selector"},
		{name: "partial: status answers as kubectl", args: []string{"status", "-f", "testdata/partial-deploy.yaml"},
			golden: "status-partial-deploy.txt", stderr: "note: kubectl reads the Deployment alone, so its verdict holds although testdata/partial-deploy.yaml lacks",
			reason: "kubectl rollout status reads the Deployment alone: its answer on the Deployment without its ReplicaSets is what kubectl would print"},
		{name: "partial: a List without the named ReplicaSet", args: []string{"plan", "-f", "testdata/partial-list.yaml", "--now", now},
			golden: "plan-partial-list.txt",
			stderr: "  - its Progressing condition (NewReplicaSetAvailable) names ReplicaSet api-84f6d9c7b5, which the input lacks\n" +
				"  - it is at revision 2 but the input has no ReplicaSet of revision 2\n",
			reason: "the status names api-84f6d9c7b5 at revision 2; the List has only revision 1, so the plan to create a ReplicaSet is warned about"},
		{name: "partial: strict on a List without the named ReplicaSet", args: []string{"status", "-f", "testdata/partial-list.yaml", "--rule", "strict"},
			errWant: "no verdict: strict reads the ReplicaSets: testdata/partial-list.yaml holds only part of Deployment", exit: cli.ExitPartialInput,
			reason: "strict reads the ReplicaSets and their pods: without the named ReplicaSet it gives no verdict"},
		{name: "whole input: no warning", args: []string{"plan", "-f", "testdata/complete.yaml", "--now", now},
			golden: "plan-complete.txt", stderrNot: "warning",
			reason: "a complete List: nothing to do, and the plan says why (the rollout is complete)"},
		{name: "simulate: the input's own state", args: []string{"simulate", "-f", "testdata/midrollout.yaml", "--now", now},
			golden: "simulate-midrollout.txt",
			reason: "the old ReplicaSet is at 0 in the input while holding the only available pod: reported once as the input's, exit 0 for the completed rollout"},
		{name: "simulate: stale desired-replicas stalls", args: []string{"simulate", "-f", "testdata/stale.yaml", "--now", now},
			golden: "simulate-stale.txt", errWant: "the rollout ended Stalled (exit code 4)", exit: cli.ExitStalled,
			reason: "kubernetes#102551: every sync is a scaling event that writes nothing; the outcome is explained and names the fix"},
		{name: "simulate: stale desired-replicas with the fix", args: []string{"simulate", "-f", "testdata/stale.yaml", "--now", now, "--fix", "StaleDesiredReplicas"},
			golden: "simulate-stale-fixed.txt",
			reason: "--fix StaleDesiredReplicas refreshes the annotation: the rollout completes, exit 0"},
		{name: "plan: stale desired-replicas", args: []string{"plan", "-f", "testdata/stale.yaml", "--now", now},
			golden: "plan-stale.txt",
			reason: "the idle scaling event is explained, in words"},
		{name: "unknown fix", args: []string{"plan", "-f", "testdata/stale.yaml", "--now", now, "--fix", "Everything"},
			errWant: `--fix "Everything": unknown; the fixes are ProportionalOverflow, StaleDesiredReplicas, UnhealthyFirst`,
			reason:  "--fix takes the names deploysync.Fixes lists"},
		{name: "huge: pod limit before starting", args: []string{"simulate", "-f", "testdata/huge.yaml", "--now", now},
			errWant: "the rollout needs up to 2000000000 pods (spec.replicas 2000000000 + maxSurge 0; the ReplicaSets ask for 0 and hold 0), more than the pod limit 1000000: raise it with --max-pods 2000000000",
			reason:  "two billion replicas are refused at once, naming the flag that raises the limit"},
		{name: "huge: the limit raised still checks", args: []string{"simulate", "-f", "testdata/huge.yaml", "--now", now, "--max-pods", "1999999999"},
			errWant: "more than the pod limit 1999999999",
			reason:  "--max-pods is the limit the check uses"},
		{name: "helm template output", args: []string{"plan", "-f", "testdata/helm.yaml", "--now", now},
			golden: "plan-helm.txt", stderr: "note: skipped 1 object that is not a Deployment, ReplicaSet or Pod: 1 Service (v1)",
			reason: "comment-only documents (helm's # Source: lines of empty templates) are skipped"},
		{name: "extensions/v1beta1", args: []string{"plan", "-f", "testdata/extensions.yaml", "--now", now},
			errWant: "testdata/extensions.yaml: line 1: Deployment legacy is extensions/v1beta1: apps/v1 only: convert it with kubectl convert or change apiVersion to apps/v1",
			reason:  "an old API version is named as such, not as a Go scheme error"},
		{name: "a uid but no defaults", args: []string{"plan", "-f", "testdata/edited.yaml", "--now", now},
			golden: "plan-edited.txt",
			stderr: "has a metadata.uid but lacks defaults every apiserver sets (spec.progressDeadlineSeconds, spec.revisionHistoryLimit, spec.strategy.rollingUpdate.maxSurge, spec.strategy.rollingUpdate.maxUnavailable, spec.strategy.type): was the file edited? Filled in the defaults of the Kubernetes 1.37 apiserver",
			reason: "an edited export gets the defaults back, and a note says which were missing"},
		{name: "a uid but a template default removed", args: []string{"plan", "-f", "testdata/edited-template.yaml", "--now", now},
			golden: "plan-complete.txt",
			stderr: "has a metadata.uid but lacks defaults every apiserver sets (spec.template.spec.containers[0].terminationMessagePath): was the file edited?",
			reason: "complete.yaml with the Deployment's terminationMessagePath removed: an apiserver sets it again, so the plan is complete.yaml's (nothing to do), not a new ReplicaSet"},
		{name: "two namespaces", args: []string{"plan", "-f", "testdata/namespaces.yaml", "--now", now},
			errWant: "2 Deployments (blue/web, green/web): choose one with -n and --deployment",
			reason:  "Deployments of the same name in two namespaces: -n chooses"},
		{name: "-n picks the namespace", args: []string{"plan", "-f", "testdata/namespaces.yaml", "-n", "green", "--now", now},
			golden: "plan-namespace-green.txt",
			reason: "-n green keeps green's objects only"},
		{name: "--namespace", args: []string{"plan", "-f", "testdata/handwritten.yaml", "--namespace", "tools", "--now", now},
			stderr: "Deployment tools/hello (line 1) has no metadata.uid", stderrNot: `using "default"`,
			reason: "--namespace gives objects without a namespace that namespace"},
		{name: "-n of another namespace", args: []string{"plan", "-f", "testdata/rollout.yaml", "-n", "other", "--now", now},
			errWant: "no Deployment in the file in namespace other",
			reason:  "-n filters: the List's Deployment is in shop"},
		{name: "help says kubectl deploysync", args: []string{"--help"}, golden: "help.txt",
			reason: "kubectl users type kubectl deploysync; the exit codes are documented"},
		{name: "simulate help", args: []string{"simulate", "--help"}, golden: "help-simulate.txt",
			reason: "simulate's help documents one exit code per outcome and the flags --max-pods and --fix"},
		{name: "no file", args: []string{"plan"}, errWant: "name a Deployment (NAME or deploy/NAME) to read it from the cluster, or give -f FILE",
			reason: "the file is required"},
		{name: "bad now", args: []string{"plan", "-f", "testdata/rollout.yaml", "--now", "noon"}, errWant: "--now",
			reason: "--now takes RFC 3339"},
		{name: "bad output", args: []string{"plan", "-f", "testdata/rollout.yaml", "--now", now, "-o", "wide"}, errWant: `-o "wide": want text, json or yaml`,
			reason: "only text, json and yaml are offered"},
		{name: "set-image *", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now, "--set-image", "*=nginx:1.29"},
			golden: "simulate-set-image-all.txt",
			reason: "'*=IMAGE' sets every container's image, as kubectl set image accepts it"},
		{name: "set-image pairs", args: []string{"simulate", "-f", "testdata/streams/hand-anchors.yaml", "--now", now, "--set-image", "web=nginx:1.28,sidecar=busybox:1.37"},
			golden: "simulate-set-image-pairs.txt",
			reason: "NAME=IMAGE per container, several at once as kubectl set image takes them (comma-separated or repeated)"},
		{name: "set-image * with others", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now, "--set-image", "*=nginx:1.29", "--set-image", "web=nginx:1.28"},
			errWant: "--set-image: all containers are already specified by *, but saw more than one container_name=container_image pairs",
			reason:  "kubectl set image refuses * beside other pairs, with these words"},
		{name: "set-image unknown container", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now, "--set-image", "nope=nginx:1.29"},
			errWant: `set image: unable to find container named "nope"`,
			reason:  "a name no container or init container has is an error, as kubectl's"},
		{name: "version", args: []string{"version", "--kubernetes-version", "1.35"}, golden: "version.txt",
			reason: "version prints the plugin's and the library's module versions and the minor the commands decide as"},
		{name: "two of one name", args: []string{"plan", "-f", "testdata/streams/hand-same-name-twice.yaml", "--now", now},
			errWant: "2 Deployments (shop/web#1 (line 1), shop/web#2 (line 21)): choose one with --deployment (NAME#N for the Nth of a repeated name",
			reason:  "two Deployments of one name in one namespace are told apart by position, with their lines, instead of a dead end"},
		{name: "the second of one name", args: []string{"plan", "-f", "testdata/streams/hand-same-name-twice.yaml", "--deployment", "web#2", "--now", now},
			golden: "plan-same-name-second.txt",
			reason: "--deployment web#2 picks the second (nginx:1.28), the one kubectl apply leaves in the cluster"},
		{name: "nth past the end", args: []string{"plan", "-f", "testdata/streams/hand-same-name-twice.yaml", "--deployment", "web#3", "--now", now},
			errWant: "--deployment web#3: the file has 2 Deployments named web",
			reason:  "a position past the last is named as such"},
		{name: "plan help", args: []string{"plan", "--help"}, golden: "help-plan.txt",
			reason: "every command's help lists its exit codes"},
		{name: "history help", args: []string{"history", "--help"}, golden: "help-history.txt",
			reason: "every command's help lists its exit codes"},
		{name: "diagnose help", args: []string{"diagnose", "--help"}, golden: "help-diagnose.txt",
			reason: "every command's help lists its exit codes"},
		{name: "diff help", args: []string{"diff", "--help"}, golden: "help-diff.txt",
			reason: "diff's help says what it compares, how it defaults, and its exit codes"},
		{name: "diff without a manifest", args: []string{"diff", "--state", "testdata/complete.yaml"},
			errWant: "diff needs the manifest to apply: -f FILE",
			reason:  "the manifest is required, as kubectl diff -f"},
		{name: "diff of a truncated manifest", args: []string{"diff", "-f", "testdata/streams/hand-truncated.yaml", "--state", "testdata/complete.yaml", "--now", now},
			errWant: "testdata/streams/hand-truncated.yaml: line 17: error converting YAML to JSON: yaml: did not find expected ',' or '}'",
			reason:  "a truncated stream is an error naming the file and the line"},
		{name: "version help", args: []string{"version", "--help"}, golden: "help-version.txt",
			reason: "every command's help lists its exit codes"},
		{name: "bad set-image", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now, "--set-image", "nginx"}, errWant: "invalid image format: nginx: want CONTAINER=IMAGE",
			reason: "--set-image needs a container and an image"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			r := run(t, tt.args...)
			switch {
			case tt.errWant == "" && r.err != nil:
				t.Fatalf("error: %v\nstderr: %s", r.err, r.stderr)
			case tt.errWant != "" && (r.err == nil || !strings.Contains(r.err.Error(), tt.errWant)):
				t.Fatalf("error %v, want one containing %q", r.err, tt.errWant)
			}
			if tt.exit != 0 {
				var e *cli.ExitError
				if !errors.As(r.err, &e) || e.Code != tt.exit {
					t.Errorf("error %v, want exit code %d", r.err, tt.exit)
				}
			}
			if !strings.Contains(unwrapped(r.stderr), unwrapped(tt.stderr)) {
				t.Errorf("stderr %q, want it to contain %q", r.stderr, tt.stderr)
			}
			if tt.stderrNot != "" && strings.Contains(unwrapped(r.stderr), unwrapped(tt.stderrNot)) {
				t.Errorf("stderr %q, want it without %q", r.stderr, tt.stderrNot)
			}
			if tt.golden != "" {
				golden(t, tt.golden, goless(homeless(r.stdout)))
			}
		})
	}
}

// unwrapped is s with every run of white space (the line breaks of
// wrapped text among them) as one space, so a check of what stderr says
// does not depend on where lines wrap.
func unwrapped(s string) string { return strings.Join(strings.Fields(s), " ") }

// goless writes the Go version version prints as GOVERSION.
func goless(s string) string { return strings.ReplaceAll(s, runtime.Version(), "GOVERSION") }

// homeless writes the home directory in kubectl's flag defaults (such as
// --cache-dir's) as $HOME, so the help goldens hold on any machine.
func homeless(s string) string {
	if home := homedir.HomeDir(); home != "" {
		s = strings.ReplaceAll(s, `"`+home+`/`, `"$HOME/`)
	}
	return s
}

// TestFitsEightyColumns checks every text golden of the commands: no line
// is wider than 80 columns (the stream summary is a test record, not output).
func TestFitsEightyColumns(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if filepath.Base(f) == "streams.txt" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if n := len([]rune(line)); n > 80 {
				t.Errorf("%s:%d: %d columns: %s", f, i+1, n, line)
			}
		}
	}
}

// TestSimulateSVGDeadline charts a rollout that waits ten minutes for its
// progress deadline: the axis ends shortly after the last change (not at
// 600 s, where the first seconds would be a sliver) and the legend says
// until when nothing changed and how the run ended.
func TestSimulateSVGDeadline(t *testing.T) {
	out := filepath.Join(t.TempDir(), "stuck.svg")
	r := run(t, "simulate", "-f", "testdata/rollout.yaml", "--now", now, "--failing-image", "nginx:1.28", "--svg", out)
	var e *cli.ExitError
	if !errors.As(r.err, &e) || e.Code != cli.ExitDeadlineExceeded {
		t.Fatalf("error %v, want exit code %d", r.err, cli.ExitDeadlineExceeded)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "stuck.svg", string(b))
	if !strings.Contains(string(b), "(ProgressDeadlineExceeded)</text>") || !strings.Contains(string(b), "unchanged from ") {
		t.Errorf("the legend does not say until when nothing changed")
	}
}

// TestSimulateSVG writes the chart of the List's rollout and compares it
// with the golden SVG (render it with e.g. rsvg-convert to look at it).
func TestSimulateSVG(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rollout.svg")
	r := run(t, "simulate", "-f", "testdata/rollout.yaml", "--now", now, "--svg", out)
	if r.err != nil {
		t.Fatal(r.err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	for _, want := range []string{"<svg", "Rollout of shop/web (Complete)", "spec.replicas of 5c8597c5fb", "spec.replicas of 7549484477",
		"pods (not terminating)", "available pods", "seconds since the start"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	golden(t, "rollout.svg", svg)
}

// TestWallClock checks that without --now the command reads its clock.
func TestWallClock(t *testing.T) {
	read := false
	var out bytes.Buffer
	cmd := cli.NewCommand(&out, &out, func() time.Time { read = true; return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) })
	cmd.SetArgs([]string{"plan", "-f", "testdata/rollout.yaml"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !read {
		t.Error("the clock was not read")
	}
}

// TestStdin reads the List from stdin with -f - and gives the plan that -f
// FILE gives.
func TestStdin(t *testing.T) {
	b, err := os.ReadFile("testdata/rollout.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := runIn(t, string(b), "plan", "-f", "-", "--now", now)
	if r.err != nil {
		t.Fatal(r.err)
	}
	golden(t, "plan-rollout.txt", r.stdout)
}

// TestPlanJSONFeedsBack decodes every object of plan -o json as the
// manifest loader does: each carries apiVersion and kind.
func TestPlanJSONFeedsBack(t *testing.T) {
	r := run(t, "plan", "-f", "testdata/rollout.yaml", "--now", now, "-o", "json")
	if r.err != nil {
		t.Fatal(r.err)
	}
	var plan struct {
		Actions []struct {
			ReplicaSet json.RawMessage `json:"replicaSet"`
			Deployment json.RawMessage `json:"deployment"`
		} `json:"actions"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil {
		t.Fatal(err)
	}
	objects := 0
	var deployment json.RawMessage
	for _, a := range plan.Actions {
		for _, raw := range []json.RawMessage{a.ReplicaSet, a.Deployment} {
			if raw == nil {
				continue
			}
			objects++
			var tm struct{ APIVersion, Kind string }
			if err := json.Unmarshal(raw, &tm); err != nil || tm.APIVersion != "apps/v1" || tm.Kind == "" {
				t.Errorf("object without apiVersion/kind (%v): %.200s", err, raw)
			}
		}
		if a.Deployment != nil {
			deployment = a.Deployment
		}
	}
	if objects < 2 || deployment == nil {
		t.Fatalf("%d objects, want the new ReplicaSet, the scaled one and the Deployment", objects)
	}
	m, err := cli.ReadManifest(bytes.NewReader(deployment), "plan.json", cli.ReadOptions{})
	if err != nil {
		t.Fatalf("the plan's Deployment does not load: %v", err)
	}
	if m.Deployment.Name != "web" {
		t.Errorf("loaded Deployment %q, want web", m.Deployment.Name)
	}
}

// manyReplicaSets writes a List of a Deployment with 500 ReplicaSets: the
// newest at 4 replicas, the 499 before it at 0 and kept
// (revisionHistoryLimit 1000).
func manyReplicaSets() string {
	var b strings.Builder
	b.WriteString(`apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: big, namespace: ns, uid: big-uid, generation: 1, annotations: {deployment.kubernetes.io/revision: "500"}}
  spec:
    replicas: 4
    revisionHistoryLimit: 1000
    progressDeadlineSeconds: 600
    selector: {matchLabels: {app: big}}
    strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
    template:
      metadata: {labels: {app: big}}
      spec: {containers: [{name: big, image: "registry.example/big:500"}]}
  status:
    observedGeneration: 1
    replicas: 4
    updatedReplicas: 4
    readyReplicas: 4
    availableReplicas: 4
    conditions:
    - {type: Available, status: "True", reason: MinimumReplicasAvailable, lastUpdateTime: "2026-11-29T11:00:00Z", lastTransitionTime: "2026-11-29T11:00:00Z"}
    - {type: Progressing, status: "True", reason: NewReplicaSetAvailable, message: 'ReplicaSet "big-r500" has successfully progressed.', lastUpdateTime: "2026-11-29T11:00:00Z", lastTransitionTime: "2026-11-29T11:00:00Z"}
`)
	for rev := 1; rev <= 500; rev++ {
		replicas := 0
		if rev == 500 {
			replicas = 4
		}
		fmt.Fprintf(&b, `- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: big-r%[1]d
    namespace: ns
    uid: big-r%[1]d-uid
    generation: 1
    creationTimestamp: "%[3]s"
    labels: {app: big, pod-template-hash: r%[1]d}
    annotations: {deployment.kubernetes.io/revision: "%[1]d", deployment.kubernetes.io/desired-replicas: "4", deployment.kubernetes.io/max-replicas: "5"}
    ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: big, uid: big-uid, controller: true, blockOwnerDeletion: true}]
  spec:
    replicas: %[2]d
    selector: {matchLabels: {app: big, pod-template-hash: r%[1]d}}
    template:
      metadata: {labels: {app: big, pod-template-hash: r%[1]d}}
      spec: {containers: [{name: big, image: "registry.example/big:%[1]d"}]}
  status: {replicas: %[2]d, readyReplicas: %[2]d, availableReplicas: %[2]d, observedGeneration: 1}
`, rev, replicas, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rev)*time.Hour).Format(time.RFC3339))
	}
	return b.String()
}

// TestManyReplicaSets simulates a new image over 500 ReplicaSets (read from
// stdin): the table has columns for the two active ReplicaSets and folds
// the 499 at 0 ("+ 499 more at 0"), and so does the chart's legend.
func TestManyReplicaSets(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "many.svg")
	r := runIn(t, manyReplicaSets(), "simulate", "-f", "-", "--now", now, "--set-image", "big=registry.example/big:501", "--svg", svg)
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	header := strings.SplitN(r.stdout, "\n", 4)[2]
	if got := strings.Count(header, "r"); len(header) > 200 || !strings.Contains(header, "r500") || got > 20 {
		t.Errorf("header %q: want the active ReplicaSets only", header)
	}
	if !strings.Contains(r.stdout, "+ 499 more at 0") {
		t.Errorf("the table does not count the folded ReplicaSets:\n%s", r.stdout)
	}
	golden(t, "simulate-many.txt", r.stdout)
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, "+ 499 more ReplicaSets at 0 (not drawn)") || strings.Contains(s, "spec.replicas of r1<") {
		t.Errorf("the chart does not fold the idle ReplicaSets")
	}
}

// TestSimulateExit maps finished runs to exit codes. No input makes the
// controller (upstream's decisions) break an invariant, so the violation
// row is a timeline built by hand; the other rows come from Outcome alone.
func TestSimulateExit(t *testing.T) {
	broken := []simulate.Violation{{Step: 4, Invariant: simulate.SurgeBound, Detail: "6 pods, more than replicas 4 + maxSurge 1 = 5"}}
	tests := []struct {
		name   string
		tl     simulate.Timeline
		code   int // 0: no error
		reason string
	}{
		{name: "complete", tl: simulate.Timeline{Outcome: simulate.Complete}, code: 0,
			reason: "a completed rollout with every invariant held is a success"},
		{name: "violation wins", tl: simulate.Timeline{Outcome: simulate.Complete, Violations: broken}, code: cli.ExitViolation,
			reason: "a broken invariant is exit code 2 even when the rollout completed: it is a bug to report"},
		{name: "violation over deadline", tl: simulate.Timeline{Outcome: simulate.DeadlineExceeded, Violations: broken}, code: cli.ExitViolation,
			reason: "the violation code wins over every outcome code"},
		{name: "input broken only", tl: simulate.Timeline{Outcome: simulate.Complete, InputBroken: broken}, code: 0,
			reason: "an invariant the input already broke is not the controller's: no error"},
		{name: "deadline", tl: simulate.Timeline{Outcome: simulate.DeadlineExceeded}, code: cli.ExitDeadlineExceeded,
			reason: "past the progress deadline"},
		{name: "stalled", tl: simulate.Timeline{Outcome: simulate.Stalled}, code: cli.ExitStalled,
			reason: "nothing left to happen, not complete"},
		{name: "step limit", tl: simulate.Timeline{Outcome: simulate.StepLimit}, code: cli.ExitStepLimit,
			reason: "--max-steps reached while still going"},
		{name: "paused", tl: simulate.Timeline{Outcome: simulate.StoppedPaused}, code: cli.ExitPaused,
			reason: "a paused Deployment rolls nothing out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := cli.SimulateExit(&tt.tl)
			if tt.code == 0 {
				if err != nil {
					t.Fatalf("error %v, want none (%s)", err, tt.reason)
				}
				return
			}
			var e *cli.ExitError
			if !errors.As(err, &e) || e.Code != tt.code {
				t.Fatalf("error %v, want exit code %d (%s)", err, tt.code, tt.reason)
			}
			if want := fmt.Sprintf("exit code %d", tt.code); !strings.Contains(err.Error(), want) {
				t.Errorf("message %q does not say %q", err.Error(), want)
			}
		})
	}
}
