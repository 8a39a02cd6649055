package kubectl

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync/internal/kversion"
)

// DescribeTemplateFor is [DescribeTemplate] as the kubectl of a Kubernetes
// minor prints it (version as deploysync.WithKubernetesVersion parses it;
// an unsupported one is an error that lists the supported minors). What
// differs, from k8s.io/kubectl's pkg/describe/describe.go:
//
//   - 1.33 prints ports as "80/TCP"; from 1.34 a named port is
//     "80/TCP (http)" (describeContainerPorts and describeContainerHostPorts,
//     v0.34.4);
//   - up to 1.36 a probe's thresholds read "#success=1 #failure=3"; 1.37
//     writes "successThreshold=1 failureThreshold=3" (DescribeProbe,
//     v0.37.2);
//   - the scheduling group (spec.schedulingGroup, added in 1.36) is printed
//     from 1.36 (v0.36.3); older kubectl does not decode the field, so
//     does not print it. (kubectl 1.35 prints a spec.workloadRef section
//     instead, a field of 1.35 only that the library's k8s.io/api no longer
//     has, so it cannot be rendered here.)
func DescribeTemplateFor(version string, t *corev1.PodTemplateSpec) (string, error) {
	m, err := kversion.Parse(version)
	if err != nil {
		return "", err
	}
	return describeTemplate(m, t)
}

// HistoryTextFor is [HistoryText] as the kubectl of a Kubernetes minor
// prints it: the same rules in every minor (k8s.io/kubectl's
// pkg/cmd/rollout/rollout_history.go and pkg/polymorphichelpers/history.go
// decide alike from v0.33.5 to v0.37.2, a missing --revision included:
// "unable to find the specified revision"), with the pod template of rule 3
// described as [DescribeTemplateFor] says.
func HistoryTextFor(version string, d *appsv1.Deployment, rss []*appsv1.ReplicaSet, revision int64) (string, error) {
	m, err := kversion.Parse(version)
	if err != nil {
		return "", err
	}
	return historyText(m, d, rss, revision)
}

// UndoWarning returns what `kubectl rollout undo deployment/NAME` of a
// Kubernetes minor writes to standard error before it rolls back, or "".
// From 1.36 (k8s.io/kubectl v0.36.3, pkg/cmd/rollout/rollout_undo.go), when
// the Deployment has the kubectl.kubernetes.io/last-applied-configuration
// annotation, it warns that the rollback will not update it; it writes the
// warning whatever the rollback then does (a paused Deployment, a missing
// revision and an unchanged template get it too). Up to 1.35 it writes
// nothing. The text names the command "kubectl", as the kubectl binary
// does. An unsupported version is an error that lists the supported minors.
func UndoWarning(version string, d *appsv1.Deployment) (string, error) {
	m, err := kversion.Parse(version)
	if err != nil {
		return "", err
	}
	if !m.AtLeast(kversion.V1_36) {
		return "", nil
	}
	if _, ok := d.Annotations[corev1.LastAppliedConfigAnnotation]; !ok {
		return "", nil
	}
	const cmd = "kubectl"
	return fmt.Sprintf("Warning: resource deployments/%s was previously managed with '%s apply'. "+
		"Rolling back will not update the %s annotation, which may cause unexpected behavior on future '%s apply' operations. "+
		"Consider using '%s apply' with your previous configuration file instead.\n",
		d.Name, cmd, corev1.LastAppliedConfigAnnotation, cmd, cmd), nil
}

// UndoFor is [Undo] as the kubectl of a Kubernetes minor sends it (version
// as deploysync.WithKubernetesVersion parses it; an unsupported one is an
// error that lists the supported minors). The rules are the same in every
// minor; the patch's bytes are not: kubectl 1.33 serializes the template
// with k8s.io/apimachinery v0.33.5, whose ObjectMeta.creationTimestamp
// lacks the omitzero of v0.34 on, so its patch carries the template's zero
// creationTimestamp as "metadata":{"creationTimestamp":null,...}; from 1.34
// the key is left out, as [Undo] does.
func UndoFor(version string, d *appsv1.Deployment, rss []*appsv1.ReplicaSet, toRevision int64) (*UndoPatch, error) {
	m, err := kversion.Parse(version)
	if err != nil {
		return nil, err
	}
	return undo(m, d, rss, toRevision)
}

// templateV133 is a pod template as k8s.io/apimachinery v0.33.5 writes it
// to JSON.
type templateV133 struct {
	ObjectMeta objectMetaV133 `json:"metadata,omitempty"`
	Spec       corev1.PodSpec `json:"spec,omitempty"`
}

// objectMetaV133 is metav1.ObjectMeta with v0.33.5's JSON tags: the same
// fields in the same order (the conversion from metav1.ObjectMeta would not
// compile otherwise), creationTimestamp without omitzero, so a zero time is
// written as null.
type objectMetaV133 struct {
	Name                       string                      `json:"name,omitempty"`
	GenerateName               string                      `json:"generateName,omitempty"`
	Namespace                  string                      `json:"namespace,omitempty"`
	SelfLink                   string                      `json:"selfLink,omitempty"`
	UID                        types.UID                   `json:"uid,omitempty"`
	ResourceVersion            string                      `json:"resourceVersion,omitempty"`
	Generation                 int64                       `json:"generation,omitempty"`
	CreationTimestamp          metav1.Time                 `json:"creationTimestamp,omitempty"`
	DeletionTimestamp          *metav1.Time                `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64                      `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string           `json:"labels,omitempty"`
	Annotations                map[string]string           `json:"annotations,omitempty"`
	OwnerReferences            []metav1.OwnerReference     `json:"ownerReferences,omitempty"`
	Finalizers                 []string                    `json:"finalizers,omitempty"`
	ManagedFields              []metav1.ManagedFieldsEntry `json:"managedFields,omitempty"`
}
