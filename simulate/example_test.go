package simulate_test

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/simulate"
)

// Roll 4 replicas of web from nginx:1.27 to nginx:1.28 and read the summary.
func ExampleRun() {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](4),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
	state, err := simulate.Steady(d, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	if err != nil {
		panic(err)
	}
	tl, err := simulate.Run(state, simulate.WithChanges(simulate.SetImage(0, "web", "nginx:1.28")))
	if err != nil {
		panic(err)
	}
	fmt.Print(tl.Summary())
	// Output:
	// outcome:        Complete after 15.05s (17 syncs)
	// peak pods:      5 at step 2 (replicas 4 + maxSurge 1 = 5), 7 with terminating pods
	// min available:  3 at step 1 (replicas 4 - maxUnavailable 1 = 3)
	// invariants:     all held
}
