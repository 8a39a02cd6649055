package deployutil_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
)

// A rolling update of 10 replicas with the default 25%/25%: up to 3 extra
// pods (2.5 rounds up) and up to 2 unavailable ones (2.5 rounds down).
func ExampleResolveFenceposts() {
	surge, unavailable, err := deployutil.ResolveFenceposts(
		ptr.To(intstr.FromString("25%")), ptr.To(intstr.FromString("25%")), 10)
	if err != nil {
		panic(err)
	}
	fmt.Printf("maxSurge %d, maxUnavailable %d\n", surge, unavailable)

	// Both 0 would block a rollout; upstream lets one pod be unavailable.
	surge, unavailable, _ = deployutil.ResolveFenceposts(ptr.To(intstr.FromInt32(0)), ptr.To(intstr.FromInt32(0)), 10)
	fmt.Printf("maxSurge %d, maxUnavailable %d\n", surge, unavailable)
	// Output:
	// maxSurge 3, maxUnavailable 2
	// maxSurge 0, maxUnavailable 1
}

// The pod-template-hash and the name of the ReplicaSet that
// kube-controller-manager v1.37.2 creates for a template; a hash collision
// (status.collisionCount) gives another name.
func ExampleComputeHash() {
	tpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27"}}},
	}
	hash := deployutil.ComputeHash(&tpl, nil)
	fmt.Println(hash, deployutil.ReplicaSetName("nginx-deploy", hash))
	fmt.Println(deployutil.ComputeHash(&tpl, ptr.To[int32](1)))
	// Output:
	// 76f8596b8b nginx-deploy-76f8596b8b
	// 549bbcb6b7
}
