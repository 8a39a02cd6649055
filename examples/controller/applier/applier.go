package applier

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/deploysync/deploysync/execute"
)

// Component is the event source component of kube-controller-manager's
// Deployment controller; recorders given to an [Applier] or a [Runtime]
// should use it so that events read the same whichever controller wrote
// them.
const Component = "deployment-controller"

// Applier is the client-go implementation of [execute.Client]: each
// method is one call of the clientset. The zero value is not usable: set
// both fields.
type Applier struct {
	// Client writes the ReplicaSets and the Deployment, and reads the
	// Deployment fresh before an adoption.
	Client kubernetes.Interface
	// Recorder records the plan's events on the Deployment.
	Recorder record.EventRecorder
}

var (
	_ execute.Client = (*Applier)(nil)
	_ execute.Client = (*Runtime)(nil)
)

// CreateReplicaSet creates rs.
func (a *Applier) CreateReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	return a.Client.AppsV1().ReplicaSets(rs.Namespace).Create(ctx, rs, metav1.CreateOptions{})
}

// UpdateReplicaSet updates rs.
func (a *Applier) UpdateReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	return a.Client.AppsV1().ReplicaSets(rs.Namespace).Update(ctx, rs, metav1.UpdateOptions{})
}

// PatchReplicaSet patches the ReplicaSet.
func (a *Applier) PatchReplicaSet(ctx context.Context, ns, name string, pt types.PatchType, data []byte) (*appsv1.ReplicaSet, error) {
	return a.Client.AppsV1().ReplicaSets(ns).Patch(ctx, name, pt, data, metav1.PatchOptions{})
}

// DeleteReplicaSet deletes the ReplicaSet, with uid as precondition.
func (a *Applier) DeleteReplicaSet(ctx context.Context, ns, name string, uid types.UID) error {
	return a.Client.AppsV1().ReplicaSets(ns).Delete(ctx, name, deleteOptions(uid))
}

// GetDeployment reads the Deployment from the server.
func (a *Applier) GetDeployment(ctx context.Context, ns, name string) (*appsv1.Deployment, error) {
	return a.Client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
}

// UpdateDeployment updates d.
func (a *Applier) UpdateDeployment(ctx context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	return a.Client.AppsV1().Deployments(d.Namespace).Update(ctx, d, metav1.UpdateOptions{})
}

// UpdateDeploymentStatus updates d's status.
func (a *Applier) UpdateDeploymentStatus(ctx context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	return a.Client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
}

// Event records the event on d.
func (a *Applier) Event(d *appsv1.Deployment, eventType, reason, message string) {
	a.Recorder.Event(d, eventType, reason, message)
}

func deleteOptions(uid types.UID) metav1.DeleteOptions {
	if uid == "" {
		return metav1.DeleteOptions{}
	}
	return metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}
}

// Runtime is the controller-runtime implementation of [execute.Client].
// The zero value is not usable: set every field.
type Runtime struct {
	// Client writes the ReplicaSets and the Deployment (a manager's
	// client).
	Client client.Client
	// APIReader reads the Deployment fresh before an adoption: it must
	// read the server, not a cache (a manager's GetAPIReader).
	APIReader client.Reader
	// Recorder records the plan's events on the Deployment.
	Recorder record.EventRecorder
}

// CreateReplicaSet creates rs.
func (r *Runtime) CreateReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	out := rs.DeepCopy()
	return out, r.Client.Create(ctx, out)
}

// UpdateReplicaSet updates rs.
func (r *Runtime) UpdateReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	out := rs.DeepCopy()
	return out, r.Client.Update(ctx, out)
}

// PatchReplicaSet patches the ReplicaSet.
func (r *Runtime) PatchReplicaSet(ctx context.Context, ns, name string, pt types.PatchType, data []byte) (*appsv1.ReplicaSet, error) {
	out := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	return out, r.Client.Patch(ctx, out, client.RawPatch(pt, data))
}

// DeleteReplicaSet deletes the ReplicaSet, with uid as precondition.
func (r *Runtime) DeleteReplicaSet(ctx context.Context, ns, name string, uid types.UID) error {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	opts := deleteOptions(uid)
	return r.Client.Delete(ctx, rs, &client.DeleteOptions{Preconditions: opts.Preconditions})
}

// GetDeployment reads the Deployment with APIReader.
func (r *Runtime) GetDeployment(ctx context.Context, ns, name string) (*appsv1.Deployment, error) {
	var d appsv1.Deployment
	return &d, r.APIReader.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &d)
}

// UpdateDeployment updates d.
func (r *Runtime) UpdateDeployment(ctx context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	out := d.DeepCopy()
	return out, r.Client.Update(ctx, out)
}

// UpdateDeploymentStatus updates d's status.
func (r *Runtime) UpdateDeploymentStatus(ctx context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	out := d.DeepCopy()
	return out, r.Client.Status().Update(ctx, out)
}

// Event records the event on d.
func (r *Runtime) Event(d *appsv1.Deployment, eventType, reason, message string) {
	r.Recorder.Event(d, eventType, reason, message)
}

// WithCache returns c answering [execute.ReplicaSetCache] with get: the
// cache the controller makes its states from (an informer's lister, a
// manager's cache). [execute.Plan] then answers a create refused with
// AlreadyExists as upstream answers it from its lister: the ReplicaSet as
// that cache holds it at that moment decides between the Deployment's own
// ReplicaSet and a hash collision, and a cache that does not hold it yet
// decides nothing (the next sync sees it in its state).
func WithCache(c execute.Client, get func(ctx context.Context, namespace, name string) (*appsv1.ReplicaSet, error)) execute.Client {
	return cached{c, get}
}

type cached struct {
	execute.Client
	get func(ctx context.Context, namespace, name string) (*appsv1.ReplicaSet, error)
}

func (c cached) CachedReplicaSet(ctx context.Context, ns, name string) (*appsv1.ReplicaSet, error) {
	return c.get(ctx, ns, name)
}
