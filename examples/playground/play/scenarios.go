package play

import (
	"fmt"
	"strings"
)

// Scenario is a ready-made request with a name and what it shows.
type Scenario struct {
	// ID names the scenario in a link ("#s=ID").
	ID string `json:"id"`
	// Name and Reason are those of the simulator's golden scenario it
	// mirrors, when it mirrors one.
	Name   string `json:"name"`
	Reason string `json:"reason"`
	// Golden is the golden transcript of the scenario, relative to the
	// playground module: the simulator's own (../../simulate/testdata/...)
	// for a scenario it has, else the playground's (testdata/...).
	Golden  string  `json:"-"`
	Request Request `json:"request"`
}

// deploymentYAML is web in default, nginx:1.27, as the simulator's golden
// scenarios build it; strategy is the indented body of spec.strategy and
// extra more lines of spec.
func deploymentYAML(replicas int, strategy string, extra ...string) string {
	var spec strings.Builder
	for _, e := range extra {
		spec.WriteString("  " + e + "\n")
	}
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: %d
%s  selector:
    matchLabels:
      app: web
  strategy:
%s  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
`, replicas, spec.String(), strategy)
}

func rolling(surge, unavailable string) string {
	return fmt.Sprintf("    type: RollingUpdate\n    rollingUpdate:\n      maxSurge: %s\n      maxUnavailable: %s\n", surge, unavailable)
}

const recreateStrategy = "    type: Recreate\n"

// upgrade is the image change the rollouts start with.
const upgrade = "0s set image web=nginx:1.28\n"

func golden(name string) string {
	return "../../simulate/testdata/" + strings.ReplaceAll(name, " ", "-") + ".golden"
}

// Scenarios returns the page's scenarios, the default first. All but the
// hash collision are the simulator's golden scenarios of the same name.
func Scenarios() []Scenario {
	def := rolling("25%", "25%")
	bad := []string{"nginx:bad"}
	mirror := func(id, name, reason string, req Request) Scenario {
		if req.Pods.StartDelay == 0 && req.Pods.ReadyDelay == 0 && req.Pods.TerminationDelay == 0 {
			fail, refused, until, rate, seed := req.Pods.FailingImages, req.Pods.RefusedImages, req.Pods.RefusedUntil, req.Pods.FailureRate, req.Pods.Seed
			req.Pods = DefaultPods
			req.Pods.FailingImages, req.Pods.RefusedImages, req.Pods.RefusedUntil, req.Pods.FailureRate, req.Pods.Seed = fail, refused, until, rate, seed
		}
		return Scenario{ID: id, Name: name, Reason: reason, Golden: golden(name), Request: req}
	}
	out := []Scenario{
		mirror("rolling", "rolling 25-25 10 replicas",
			"the default strategy: at most 13 pods, at least 8 available, the new ReplicaSet grows as old pods become available",
			Request{YAML: deploymentYAML(10, def), Script: upgrade}),
		mirror("surge0", "rolling maxSurge 0",
			"maxSurge 0: old pods go first, never more than 10 pods; at least 8 available",
			Request{YAML: deploymentYAML(10, rolling("0", "25%")), Script: upgrade}),
		mirror("unavailable0", "rolling maxUnavailable 0",
			"maxUnavailable 0: all 10 stay available; new pods surge by 3 and old ones go only once new ones are available",
			Request{YAML: deploymentYAML(10, rolling("25%", "0")), Script: upgrade}),
		mirror("recreate", "recreate",
			"Recreate scales the old ReplicaSet to 0, waits until its terminating pods are gone, then creates the new one at full size",
			Request{YAML: deploymentYAML(4, recreateStrategy), Script: upgrade}),
		mirror("scaleup", "scale up mid-rollout",
			"spec.replicas 10→20 at 3s while two ReplicaSets run: both grow in proportion (scaling event), then the rollout goes on",
			Request{YAML: deploymentYAML(10, def), Script: upgrade + "3s scale 20\n"}),
		mirror("scaledown", "scale down mid-rollout",
			"spec.replicas 10→4 at 3s: both ReplicaSets shrink in proportion to replicas+maxSurge (6), then the rollout goes on",
			Request{YAML: deploymentYAML(10, def), Script: upgrade + "3s scale 4\n"}),
		mirror("pause", "pause and resume",
			"paused at 1s the rollout stops where it is (Progressing Unknown/DeploymentPaused); resumed at 30s it restarts the deadline and completes",
			Request{YAML: deploymentYAML(10, def), Script: upgrade + "1s pause\n30s resume\n"}),
		mirror("rollback", "rollback through the annotation",
			"nginx:bad never becomes ready; at 20s the deprecated rollback annotation brings revision 1's template back: its ReplicaSet becomes revision 3 and scales up, the broken one down",
			Request{YAML: deploymentYAML(10, def), Pods: PodModel{FailingImages: bad},
				Script: "0s set image web=nginx:bad\n20s rollback\n"}),
		mirror("deadline", "never ready deadline exceeded",
			"nginx:bad never becomes ready: the rollout stalls at maxSurge/maxUnavailable and, 600s after the last progress, Progressing becomes False/ProgressDeadlineExceeded",
			Request{YAML: deploymentYAML(10, def), Pods: PodModel{FailingImages: bad},
				Script: "0s set image web=nginx:bad\n"}),
		mirror("refused", "refused pods then fixed",
			"an admission webhook refuses nginx:refused pods: the new ReplicaSet gets ReplicaFailure and no pod, yet the rollout moves as if its pods existed (old 10→8, new 3→5: maxSurge counts ReplicaSet sizes) and stalls at 8 available; "+
				"at 10s nginx:1.28 replaces it: the refused ReplicaSet, 5 unavailable, goes to 0 at once and the rollout completes",
			Request{YAML: deploymentYAML(10, def), Pods: PodModel{RefusedImages: []string{"nginx:refused"}},
				Script: "0s set image web=nginx:refused\n10s set image web=nginx:1.28\n"}),
		mirror("refusedlift", "refused pods then allowed",
			"an admission webhook refuses nginx:refused pods until 7s: the new ReplicaSet gets ReplicaFailure and no pod, the rollout stalls at 8 available; "+
				"the lift is no event: the ReplicaSet controller's 11 failed syncs (the create's and the scale's, each with its own status write, then the rate-limited retries, each waiting its backoff after a 4ms sync) back off to the retry at 10.252s, which creates the pods",
			Request{YAML: deploymentYAML(10, def), Pods: PodModel{RefusedImages: []string{"nginx:refused"}, RefusedUntil: 7},
				Script: "0s set image web=nginx:refused\n"}),
		mirror("quota", "replica sets refused then allowed",
			"a full quota on ReplicaSets refuses the new one: Progressing False/ReplicaSetCreateError, and the controller retries with backoff (5ms doubled per failure); "+
				"the quota is raised at 7s, which is no event: the rollout starts at the next retry, 10.24s after the first failure",
			Request{YAML: deploymentYAML(10, def), ReplicaSetQuota: "7s", Script: upgrade}),
		mirror("quotadrop", "replica sets refused past the retries",
			"the quota stays full for 3 minutes: the 16th failure, at 163.84s, would wait 163.84s more, but the controller drops the Deployment after 15 retries; "+
				"raised at 180s, nothing happens, at 327.68s neither, until the Deployment changes (an annotation at 340s), and the rollout then runs",
			Request{YAML: deploymentYAML(10, def), ReplicaSetQuota: "180s", Script: upgrade + "340s annotate example.com/retry=1\n"}),
		mirror("podquota", "pod quota with maxSurge 0",
			"a quota of 4 pods on 4 replicas, rolled with maxSurge 0 and maxUnavailable 1 (diagnose's way out of the maxSurge deadlock): each new pod is refused until the old pod deleted for it is gone, "+
				"since the quota counts terminating pods, and comes at the ReplicaSet controller's next retry",
			Request{YAML: deploymentYAML(4, rolling("0", "1")), PodQuota: "4", Script: upgrade}),
		mirror("minready", "min ready seconds",
			"minReadySeconds 10: a pod counts as available only after being ready for more than 10s, which paces the rollout",
			Request{YAML: deploymentYAML(4, def, "minReadySeconds: 10"), Script: upgrade}),
		mirror("new", "new deployment",
			"a Deployment with no ReplicaSet yet gets its first one at full size; there is no old ReplicaSet to scale down",
			Request{YAML: deploymentYAML(5, def), Begin: "new"}),
		mirror("flaky", "flaky pods seed 7",
			"with a 20% failure rate some new pods never become ready: the rollout cannot complete and times out; the seed fixes which pods fail",
			Request{YAML: deploymentYAML(10, def), Pods: PodModel{FailureRate: 0.2, Seed: 7}, Script: upgrade}),
		{ID: "collision", Name: "hash collision",
			Reason:  "an unrelated ReplicaSet already has the name the new ReplicaSet would get: the create fails, status.collisionCount goes to 1 and the next sync creates the ReplicaSet under a new hash",
			Golden:  "testdata/hash-collision.golden",
			Request: Request{YAML: deploymentYAML(10, def), Pods: DefaultPods, Script: upgrade, Collision: true}},
	}
	return out
}
