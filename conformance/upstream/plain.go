package upstream

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/kubernetes/pkg/controller/deployment"
)

// Plain builds upstream's controller the way upstream's own unit tests do —
// a fake clientset whose object tracker holds the input, informer caches
// filled with it, a FakeRecorder that drops events — and returns a function
// that runs one syncDeployment on it. Nothing is replayed or recorded: it is
// for benchmarks. The clocks are pinned to in.Now until restore is called.
//
// The caches never change, so repeated calls decide the same way as long
// as the sync creates nothing (a second create would meet AlreadyExists in
// the tracker).
func Plain(in Input) (sync func() error, restore func(), err error) {
	if err := setTerminatingReplicasGate(in.TerminatingReplicas); err != nil {
		return nil, nil, err
	}
	objs := []runtime.Object{in.Deployment.DeepCopy()}
	for _, rs := range in.ReplicaSets {
		objs = append(objs, rs.DeepCopy())
	}
	client := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(client, 0)
	dInf := factory.Apps().V1().Deployments()
	rsInf := factory.Apps().V1().ReplicaSets()
	podInf := factory.Core().V1().Pods()
	ctx := context.Background()
	dc, err := deployment.NewDeploymentController(ctx, dInf, rsInf, podInf, client)
	if err != nil {
		return nil, nil, err
	}
	if _, err := replaceField(dc, "eventRecorder", &record.FakeRecorder{}); err != nil {
		return nil, nil, err
	}
	if err := dInf.Informer().GetIndexer().Add(in.Deployment.DeepCopy()); err != nil {
		return nil, nil, err
	}
	for _, rs := range in.ReplicaSets {
		if err := rsInf.Informer().GetIndexer().Add(rs.DeepCopy()); err != nil {
			return nil, nil, err
		}
	}
	for _, pods := range in.Pods {
		for _, p := range pods {
			if err := podInf.Informer().GetIndexer().Add(p.DeepCopy()); err != nil {
				return nil, nil, err
			}
		}
	}
	key := fmt.Sprintf("%s/%s", in.Deployment.Namespace, in.Deployment.Name)
	restore = pinClocks(in.Now)
	return func() error { return syncDeployment(dc, ctx, key) }, restore, nil
}
