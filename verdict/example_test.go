package verdict_test

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	sc "github.com/deploysync/deploysync/internal/scenarios"
	"github.com/deploysync/deploysync/verdict"
)

// A Deployment paused after its rollout finished: kubectl and both Helms
// are done, kstatus keeps waiting, Argo CD calls it Suspended.
func ExampleAll() {
	d := sc.Observed(sc.Deployment(3), 3, 3, 3,
		sc.Cond(appsv1.DeploymentAvailable, corev1.ConditionTrue, "MinimumReplicasAvailable", "", time.Minute),
		sc.Cond(appsv1.DeploymentProgressing, corev1.ConditionUnknown, "DeploymentPaused", "Deployment is paused", time.Minute))
	d.Spec.Paused = true
	rss := []*appsv1.ReplicaSet{sc.ReplicaSet(sc.Steady("web-new", "nginx:1", 3, "2", time.Minute))}

	for _, v := range verdict.All(d, rss, nil) {
		fmt.Printf("%-8s done=%-5v %s %q\n", v.Tool, v.Done, v.Status, v.Message)
	}
	// Output:
	// kubectl  done=true   "deployment \"web\" successfully rolled out\n"
	// kstatus  done=false InProgress "ReplicaSet not Available"
	// helm3    done=true   ""
	// helm4    done=true   ""
	// argocd   done=false Suspended "Deployment is paused"
	// strict   done=true   "deployment \"web\" rolled out: generation 1 observed, 3 replicas updated and available, no old or terminating pods"
}
