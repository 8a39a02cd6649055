package upstream

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

var (
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: resDeployments}
	replicaSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: resReplicaSets}
)

func storeWith(t *testing.T, d *appsv1.Deployment, rss ...*appsv1.ReplicaSet) *store {
	t.Helper()
	s := newStore()
	if err := s.add(resDeployments, d, d); err != nil {
		t.Fatal(err)
	}
	for _, rs := range rss {
		if err := s.add(resReplicaSets, rs, rs); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func stored[T any](t *testing.T, s *store, res, name string) *T {
	t.Helper()
	e, ok := s.objects[storeKey{res, "ns", name}]
	if !ok {
		t.Fatalf("%s %s not stored", res, name)
	}
	out := new(T)
	if err := fromObject(e.obj, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestStatusUpdateKeepsSpecAndLabels(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns", Labels: map[string]string{"l": "1"}},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1)}}
	s := storeWith(t, d)
	sent := d.DeepCopy() // carries the internal resourceVersion add gave d
	sent.Labels = map[string]string{"l": "2"}
	sent.Annotations = map[string]string{"a": "1"}
	sent.Spec.Replicas = ptr.To[int32](5)
	sent.Status.ObservedGeneration = 7
	if _, _, err := s.react(clienttesting.NewUpdateSubresourceAction(deploymentsGVR, "status", "ns", sent)); err != nil {
		t.Fatal(err)
	}
	got := stored[appsv1.Deployment](t, s, resDeployments, "d")
	if got.Labels["l"] != "1" || *got.Spec.Replicas != 1 {
		t.Errorf("status update changed labels %v or replicas %d; the status strategy keeps them", got.Labels, *got.Spec.Replicas)
	}
	if got.Annotations["a"] != "1" || got.Status.ObservedGeneration != 7 {
		t.Errorf("status update lost annotations %v or status %+v", got.Annotations, got.Status)
	}
}

func TestUpdateKeepsStatus(t *testing.T) {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs", Namespace: "ns"},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](1)}, Status: appsv1.ReplicaSetStatus{Replicas: 1}}
	s := storeWith(t, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns"}}, rs)
	sent := rs.DeepCopy()
	sent.Spec.Replicas = ptr.To[int32](4)
	sent.Status.Replicas = 9
	ret, _, err := s.react(clienttesting.NewUpdateAction(replicaSetsGVR, "ns", sent))
	if err != nil || !ret {
		t.Fatalf("handled %v, err %v", ret, err)
	}
	got := stored[appsv1.ReplicaSet](t, s, resReplicaSets, "rs")
	if *got.Spec.Replicas != 4 || got.Status.Replicas != 1 {
		t.Errorf("replicas %d status %d, want 4 and the untouched 1", *got.Spec.Replicas, got.Status.Replicas)
	}
}

func TestCreateAndDeleteErrors(t *testing.T) {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs", Namespace: "ns"}}
	s := storeWith(t, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns"}}, rs)
	_, _, err := s.react(clienttesting.NewCreateAction(replicaSetsGVR, "ns", rs.DeepCopy()))
	if !apierrors.IsAlreadyExists(err) {
		t.Errorf("create of a taken name: %v, want AlreadyExists", err)
	}
	if _, _, err := s.react(clienttesting.NewDeleteAction(replicaSetsGVR, "ns", "rs")); err != nil {
		t.Errorf("delete: %v", err)
	}
	if _, _, err := s.react(clienttesting.NewDeleteAction(replicaSetsGVR, "ns", "rs")); !apierrors.IsNotFound(err) {
		t.Errorf("second delete: %v, want NotFound", err)
	}
	if len(s.unexpected) != 0 {
		t.Errorf("unexpected calls recorded: %v", s.unexpected)
	}
}

func TestPatchChecksUID(t *testing.T) {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs", Namespace: "ns", UID: "rs-uid"}}
	s := storeWith(t, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns"}}, rs)
	patch := []byte(`{"metadata":{"uid":"other","labels":{"x":"y"}}}`)
	_, _, err := s.react(clienttesting.NewPatchAction(replicaSetsGVR, "ns", "rs", types.StrategicMergePatchType, patch))
	if !apierrors.IsInvalid(err) {
		t.Errorf("patch with a wrong uid: %v, want Invalid", err)
	}
	patch = []byte(`{"metadata":{"uid":"rs-uid","labels":{"x":"y"}}}`)
	if _, _, err := s.react(clienttesting.NewPatchAction(replicaSetsGVR, "ns", "rs", types.StrategicMergePatchType, patch)); err != nil {
		t.Fatalf("patch: %v", err)
	}
	if got := stored[appsv1.ReplicaSet](t, s, resReplicaSets, "rs"); got.Labels["x"] != "y" {
		t.Errorf("labels = %v, want the patch applied", got.Labels)
	}
}

func TestUnmodelledCallsAreRecorded(t *testing.T) {
	s := storeWith(t, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns"}})
	_, _, err := s.react(clienttesting.NewListAction(replicaSetsGVR, schema.GroupVersionKind{}, "ns", metav1.ListOptions{}))
	if err == nil || len(s.unexpected) != 1 {
		t.Errorf("list: err %v, unexpected %v; want an error and a record", err, s.unexpected)
	}
	// An update whose resourceVersion was never handed out cannot be
	// replayed as a diff.
	sent := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns", ResourceVersion: "999"}}
	s.react(clienttesting.NewUpdateAction(deploymentsGVR, "ns", sent))
	if len(s.unexpected) != 2 {
		t.Errorf("unexpected = %v, want the unknown resourceVersion recorded", s.unexpected)
	}
}
