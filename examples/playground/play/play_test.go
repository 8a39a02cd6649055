package play

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/simulate"
)

// TestScenariosMatchGoldens runs every scenario natively and compares its
// transcript with its golden: for the scenarios the simulator has, the
// simulator's own golden file, byte for byte, so the YAML, knobs and changes
// of the page's scenario are the simulator's scenario; for the others the
// playground's testdata/. The page's result must put the same transcript
// back together from its parts.
func TestScenariosMatchGoldens(t *testing.T) {
	ids := map[string]bool{}
	for _, sc := range Scenarios() {
		t.Run(sc.ID, func(t *testing.T) {
			if sc.Reason == "" || sc.Name == "" || ids[sc.ID] {
				t.Fatalf("scenario %q needs a name, a reason and a unique id", sc.ID)
			}
			ids[sc.ID] = true
			tr, err := Transcript(sc.Request)
			if err != nil {
				t.Fatalf("Transcript: %v", err)
			}
			got := "# " + sc.Name + "\n# " + sc.Reason + "\n\n" + tr
			path := "../" + sc.Golden // Golden is relative to the module's root
			if strings.HasPrefix(sc.Golden, "testdata/") {
				// The playground's own: -update (the library's testutil
				// flag) rewrites it.
				testutil.Golden(t, path, got)
			} else {
				// The simulator's: its own test writes it.
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if diff := testutil.LineDiff(string(want), got); diff != "" {
					t.Errorf("transcript differs from the simulator's %s (-want +got):\n%s", sc.Golden, diff)
				}
			}
			res := Run(sc.Request)
			if len(res.Problems) > 0 {
				t.Fatalf("Run: %+v", res.Problems)
			}
			if res.Join() != tr {
				t.Errorf("the result's parts do not join to the transcript")
			}
			if len(res.Steps) == 0 || !strings.HasPrefix(res.Steps[0].Text, "step 0 +0s branch ") {
				t.Errorf("step 0's text starts %q", res.Steps[0].Text[:min(40, len(res.Steps[0].Text))])
			}
		})
	}
}

// runScenario runs the named scenario and fails the test on a problem.
func runScenario(t *testing.T, id string) Result {
	t.Helper()
	for _, sc := range Scenarios() {
		if sc.ID == id {
			res := Run(sc.Request)
			if len(res.Problems) > 0 {
				t.Fatalf("Run %s: %+v", id, res.Problems)
			}
			return res
		}
	}
	t.Fatalf("no scenario %q", id)
	return Result{}
}

// TestRecreateFoldsRequeues checks the folded steps of the Recreate
// scenario: its old pods terminate under a Progressing condition past its
// deadline, so the controller requeues itself at the rate limiter's pace
// and the transcript folds those steps; every step is still in the result,
// the fold's first carries the fold's line and the rest no text.
func TestRecreateFoldsRequeues(t *testing.T) {
	res := runScenario(t, "recreate")
	var folded, lines int
	for i, s := range res.Steps {
		if s.Index != i {
			t.Fatalf("step %d has index %d", i, s.Index)
		}
		if !s.Folded {
			continue
		}
		folded++
		if !s.Requeue || len(s.Actions) > 0 {
			t.Errorf("folded step %d: requeue %v, %d actions; want a requeue and nothing else", i, s.Requeue, len(s.Actions))
		}
		if s.Text != "" {
			lines++
			if !strings.HasPrefix(s.Text, fmt.Sprintf("steps %d to ", s.Index)) {
				t.Errorf("folded step %d's text starts %q", i, s.Text[:min(40, len(s.Text))])
			}
		}
	}
	if folded < 100 || lines != 1 {
		t.Errorf("%d folded steps, %d fold lines; want over 100 (the bucket's 100 tokens are spent first) in one fold", folded, lines)
	}
}

// TestCollisionScenario checks what the hash collision scenario is there to
// show: the first sync fails with the collision and raises collisionCount,
// the next creates the new ReplicaSet under another name.
func TestCollisionScenario(t *testing.T) {
	res := runScenario(t, "collision")
	if res.Outcome != "Complete" {
		t.Errorf("outcome %s, want Complete", res.Outcome)
	}
	s0 := res.Steps[0]
	if !strings.Contains(s0.Err, "collision") {
		t.Errorf("step 0 err %q, want a hash collision", s0.Err)
	}
	if !strings.Contains(s0.Text, "collisionCount") && !strings.Contains(s0.Text, "collision count") {
		t.Errorf("step 0 does not raise the collision count:\n%s", s0.Text)
	}
	created := ""
	for _, a := range res.Steps[1].Actions {
		if strings.HasPrefix(a.What, "create replicaset ") {
			created = a.What
		}
	}
	if created == "" {
		t.Fatalf("step 1 creates no ReplicaSet:\n%s", res.Steps[1].Text)
	}
	taken := regexp.MustCompile(`replicaset "([^"]+)" already exists`).FindStringSubmatch(s0.Err)
	if taken == nil {
		t.Fatalf("step 0 err %q names no ReplicaSet", s0.Err)
	}
	if strings.HasPrefix(created, "create replicaset "+taken[1]+" ") {
		t.Errorf("step 1 %q reuses the taken name %s", created, taken[1])
	}
}

// TestProblems edits the default Deployment into invalid ones and checks
// the message and the line the page shows it at.
func TestProblems(t *testing.T) {
	base := Scenarios()[0].Request
	lines := strings.Split(base.YAML, "\n")
	lineOfText := func(text string) int {
		for i, l := range lines {
			if strings.Contains(l, text) {
				return i + 1
			}
		}
		t.Fatalf("no line %q in the default YAML", text)
		return 0
	}
	for _, c := range []struct {
		name, reason string
		old, new     string
		line         int
		contains     string
	}{
		{"negative replicas", "the library refuses what the apiserver's validation refuses, naming the field: at its line",
			"replicas: 10", "replicas: -1", lineOfText("replicas: 10"), "spec.replicas"},
		{"surge and unavailable both 0", "upstream forbids maxSurge 0 with maxUnavailable 0; the error is at maxUnavailable's line",
			"maxSurge: 25%\n      maxUnavailable: 25%", "maxSurge: 0\n      maxUnavailable: 0", lineOfText("maxUnavailable: 25%"), "may not be 0 when `maxSurge` is 0"},
		{"unknown field", "strict field validation: a misspelt field is refused at its line",
			"replicas: 10", "replica: 10", lineOfText("replicas: 10"), `unknown field "replica"`},
		{"wrong type", "a string where spec.replicas wants an integer",
			"replicas: 10", `replicas: ten`, lineOfText("replicas: 10"), "spec.replicas"},
		{"selector does not match", "the template's labels must match the selector",
			"      labels:\n        app: web", "      labels:\n        app: api", lineOfText("labels:"), "selector"},
		{"wrong kind", "only apps/v1 Deployments", "kind: Deployment", "kind: StatefulSet", lineOfText("kind: Deployment"), "Unsupported value"},
		{"syntax", "a YAML syntax error at the parser's line",
			"  replicas: 10", "  replicas: [10", lineOfText("replicas: 10"), "yaml:"},
		{"junk without a line", "the parser names no line for junk at the top; the first lines it refuses the same way end at the junk",
			"apiVersion: apps/v1", "{{{ ]]]", 1, "did not find expected node content"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.reason == "" {
				t.Fatal("reason must be provided")
			}
			if !strings.Contains(base.YAML, c.old) {
				t.Fatalf("default YAML has no %q", c.old)
			}
			req := base
			req.YAML = strings.Replace(base.YAML, c.old, c.new, 1)
			res := Run(req)
			if len(res.Problems) == 0 {
				t.Fatalf("no problem reported; outcome %s", res.Outcome)
			}
			p := res.Problems[0]
			if !strings.Contains(p.Message, c.contains) {
				t.Errorf("message %q does not contain %q", p.Message, c.contains)
			}
			// The YAML parser reports a syntax error where it notices it,
			// which may be a line off the edit.
			if d := p.Line - c.line; d != 0 && !(c.name == "syntax" && d*d == 1) {
				t.Errorf("line %d, want %d (message %q)", p.Line, c.line, p.Message)
			}
		})
	}
}

func TestSplitPath(t *testing.T) {
	for _, c := range []struct {
		reason, path string
		want         []string
	}{
		{"dots", "spec.replicas", []string{"spec", "replicas"}},
		{"an index", "spec.template.spec.containers[0].image", []string{"spec", "template", "spec", "containers", "0", "image"}},
		{"a bracketed key", "metadata.annotations[deployment.kubernetes.io/revision]", []string{"metadata", "annotations", "deployment.kubernetes.io/revision"}},
	} {
		if got := splitPath(c.path); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: splitPath(%q) = %q, want %q", c.reason, c.path, got, c.want)
		}
	}
}

func TestParseScript(t *testing.T) {
	for _, c := range []struct {
		reason, script string
		want           []string // the changes' descriptions
		errLine        int
	}{
		{"every command", "0s set image web=nginx:2\n3s scale 20\n# a comment\n\n1s pause\n30s resume\n20s rollback\n21s rollback 1\n5m40s annotate note=retry\n",
			[]string{"set image web=nginx:2", "scale to 20", "pause", "resume", "rollback to revision 0 (annotation)", "rollback to revision 1 (annotation)", "annotate note=retry"}, 0},
		{"an annotation without a value's =", "0s annotate note", nil, 1},
		{"no time", "scale 3", nil, 1},
		{"a negative size", "0s set image web=x\n1s scale -1", nil, 2},
		{"an unknown command", "0s restart", nil, 1},
		{"an image without container", "0s set image nginx:2", nil, 1},
	} {
		got, err := ParseScript(c.script)
		if c.errLine > 0 {
			se, ok := err.(*ScriptError)
			if !ok || se.Line != c.errLine {
				t.Errorf("%s: err %v, want a ScriptError at line %d", c.reason, err, c.errLine)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.reason, err)
		}
		var desc []string
		for _, ch := range got {
			desc = append(desc, ch.Description)
		}
		if strings.Join(desc, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: got %q, want %q", c.reason, desc, c.want)
		}
	}
}

// TestReplicaSetQuota: the quota field's values, and a bad one as a
// problem of the page, not a crash.
func TestReplicaSetQuota(t *testing.T) {
	for _, c := range []struct {
		quota, want, reason string
	}{
		{"7s", "Complete", "raised at 7s: the retry at 10.24s creates the ReplicaSet"},
		{"always", "Stalled", "never raised: after 15 retries the controller drops the Deployment"},
		{"soon", `replicaSetQuota "soon": want a time from the start such as 7s, or always`, "no duration"},
		{"0s", `replicaSetQuota "0s": want`, "0 would mean the whole run in simulate's option; the page says always for that"},
	} {
		req := Scenarios()[0].Request
		req.ReplicaSetQuota = c.quota
		got := outcomeOrProblem(req)
		if !strings.Contains(got, c.want) {
			t.Errorf("quota %q: %q, want %q (%s)", c.quota, got, c.want, c.reason)
		}
	}
}

// TestPodQuota: the page's pod quota, a bad one as a problem of the page.
func TestPodQuota(t *testing.T) {
	for _, c := range []struct {
		quota  string
		want   string
		reason string
	}{
		{"10", "Complete", "a quota of just the 10 replicas under 25%/25%: the surge is refused, but maxUnavailable 2 deletes old pods, and each new pod comes once an old one is gone"},
		{"4", "ProgressDeadlineExceeded", "a quota below the 10 pods running admits no new pod at all: the rollout passes its deadline"},
		{"-1", `podQuota "-1": want a whole number of pods, 0 or more`, "a negative quota is a mistake, named"},
		{"many", `podQuota "many": want a whole number`, "not a number"},
	} {
		req := Scenarios()[0].Request
		req.PodQuota = c.quota
		got := outcomeOrProblem(req)
		if !strings.Contains(got, c.want) {
			t.Errorf("podQuota %q: %q, want %q (%s)", c.quota, got, c.want, c.reason)
		}
	}
}

// TestRefusedUntil: the end of a pod refusal, and a bad one as a problem
// of the page.
func TestRefusedUntil(t *testing.T) {
	for _, c := range []struct {
		until  float64
		want   string
		reason string
	}{
		{7, "Complete", "lifted at 7s: the ReplicaSet controller's retry at 10.252s makes the pods"},
		{0, "ProgressDeadlineExceeded", "never lifted: no pod is made and the progress deadline passes"},
		{-1, "refusedUntil -1: want seconds from the start", "a refusal cannot end before the start"},
	} {
		req := Scenarios()[0].Request
		req.Script = "0s set image web=nginx:refused\n"
		req.Pods.RefusedImages, req.Pods.RefusedUntil = []string{"nginx:refused"}, c.until
		got := outcomeOrProblem(req)
		if !strings.Contains(got, c.want) {
			t.Errorf("refusedUntil %v: %q, want %q (%s)", c.until, got, c.want, c.reason)
		}
	}
}

// TestScriptProblem checks that a bad line of the changes is reported in
// the changes' editor, at its line.
func TestScriptProblem(t *testing.T) {
	req := Scenarios()[0].Request
	req.Script = "0s set image web=nginx:1.28\n\n3s restart\n"
	res := Run(req)
	if len(res.Problems) != 1 || res.Problems[0].In != "script" || res.Problems[0].Line != 3 {
		t.Fatalf("problems %+v, want one in the script at line 3", res.Problems)
	}
}

// TestKubernetesVersion runs the default rollout as each minor: the new
// ReplicaSet gets the name that minor's controller gives it (its
// pod-template-hash), and an unknown minor is a problem on the page, not a
// crash.
func TestKubernetesVersion(t *testing.T) {
	var req Request
	for _, sc := range Scenarios() {
		req = sc.Request
		break
	}
	for _, v := range []string{"1.33", "1.34", "1.35", "1.36", "1.37"} {
		r := req
		r.KubernetesVersion = v
		res := Run(r)
		if len(res.Problems) > 0 {
			t.Fatalf("%s: %+v", v, res.Problems)
		}
		d, probs := parseDeployment(r.YAML)
		if len(probs) > 0 {
			t.Fatal(probs)
		}
		changes, err := ParseScript(r.Script)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range changes {
			if c.At == 0 {
				if err := c.Edit(d); err != nil {
					t.Fatal(err)
				}
			}
		}
		d = deployutil.SetDefaults(d)
		hash, err := deployutil.ComputeHashFor(v, &d.Spec.Template, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := deployutil.ReplicaSetName(d.Name, hash); !strings.Contains(res.Tail+res.Head+strings.Join(stepTexts(res), ""), want) {
			t.Errorf("%s: the run never names %s", v, want)
		}
	}
	r := req
	r.KubernetesVersion = "1.32"
	if res := Run(r); len(res.Problems) == 0 || !strings.Contains(res.Problems[0].Message, "1.33") {
		t.Errorf("Kubernetes 1.32: problems %+v, want one listing the supported minors", res.Problems)
	}
}

func stepTexts(res Result) []string {
	var out []string
	for _, s := range res.Steps {
		out = append(out, s.Text)
	}
	return out
}

// TestCalls: over every scenario, each reason of a rollout's plan belongs
// to one of the calls of its branch's function (only the claim's and the
// pause condition's, made before the branch, belong to none), and no call
// after one that made upstream's function return acted or waited.
func TestCalls(t *testing.T) {
	before := map[action.Rule]bool{action.RuleAdopt: true, action.RuleRelease: true, action.RulePaused: true,
		action.RuleResumed: true, action.RuleScaleEvent: true, action.RuleObserveGeneration: true}
	seen := map[string]bool{}
	for _, sc := range Scenarios() {
		d, _ := parseDeployment(sc.Request.YAML)
		s, opts, err := build(sc.Request, d)
		if err != nil {
			t.Fatal(err)
		}
		tl, err := simulate.Run(s, opts...)
		if err != nil {
			t.Fatal(err)
		}
		for i := range tl.Steps {
			st := &tl.Steps[i]
			specs := calls[st.Branch]
			if specs == nil {
				continue
			}
			for _, a := range st.Actions {
				for _, r := range a.Reasons() {
					if !before[r.Rule] && indexOf(specs, r.Rule) < 0 && r.Rule != action.RuleReplicasAnnotations {
						t.Errorf("%s step %d: reason %s (%s) belongs to no call of %s", sc.ID, i, r.Rule, r, Function(st.Branch))
					}
				}
			}
			returned := ""
			for _, c := range flow(st) {
				seen[c.Name+"="+c.State] = true
				if returned != "" && c.Depth == 0 && (c.State == acted || c.State == waited) && c.Name != specs[len(specs)-1].name {
					t.Errorf("%s step %d: %s %s after %s returned", sc.ID, i, c.Name, c.State, returned)
				}
				for _, sp := range specs {
					if sp.name == c.Name && sp.depth == c.Depth && sp.returnsOn != "" && sp.returnsOn == c.State {
						returned = c.Name
					}
				}
				if (c.State == acted || c.State == waited) && c.Note == "" && c.Depth == 1 {
					t.Errorf("%s step %d: %s %s without a note", sc.ID, i, c.Name, c.State)
				}
			}
		}
	}
	// The scenarios show each kind of step the page teaches.
	for _, want := range []string{"reconcileNewReplicaSet=acted", "reconcileNewReplicaSet=waited", "cleanupUnhealthyReplicas=acted",
		"scaleDownOldReplicaSetsForRollingUpdate=acted", "scaleDownOldReplicaSetsForRollingUpdate=waited", "reconcileOldReplicaSets=skipped",
		"scaleDownOldReplicaSetsForRecreate=acted", "oldPodsRunning=waited",
		"syncRolloutStatus=acted", "scale=acted"} {
		if !seen[want] {
			t.Errorf("no scenario has a step with %s", want)
		}
	}
}

// TestDifferences: the default rollout as 1.34 decides it, compared with
// 1.37: other pod-template-hashes, and status writes without
// terminatingReplicas (the gate DeploymentReplicaSetTerminatingReplicas
// is off by default before 1.35); as 1.36, compared with 1.37, only the
// hashes differ.
func TestDifferences(t *testing.T) {
	req := Scenarios()[0].Request
	req.KubernetesVersion, req.CompareMinor = "1.34", "1.37"
	d := Run(req).Differences
	if d == nil || d.Minor != "1.34" || d.Other != "1.37" || len(d.Names) != 2 || d.Steps == 0 || len(d.Lines) == 0 {
		t.Fatalf("1.34 against 1.37: %+v", d)
	}
	if l := d.Lines[0]; len(l.Other) == 0 || !strings.Contains(l.Other[0], "terminatingReplicas") || strings.Contains(strings.Join(l.Minor, "\n"), "terminatingReplicas") {
		t.Errorf("1.34 against 1.37, step %d: 1.34 prints %q, 1.37 %q; want only 1.37 to write terminatingReplicas", l.Step, l.Minor, l.Other)
	}
	req.KubernetesVersion = "1.36"
	if d := Run(req).Differences; d == nil || len(d.Names) != 2 || d.Steps != 0 || d.Outcome != "" {
		t.Errorf("1.36 against 1.37: %+v; want other names only", d)
	}
	req.KubernetesVersion, req.CompareMinor = "", ""
	if d := Run(req).Differences; d != nil {
		t.Errorf("the default minor compared with itself: %+v", d)
	}
}

// outcomeOrProblem runs req and returns its outcome, or the first problem
// the page shows when it does not run.
func outcomeOrProblem(req Request) string {
	res := Run(req)
	if len(res.Problems) > 0 {
		return res.Problems[0].Message
	}
	return res.Outcome
}
