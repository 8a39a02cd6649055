package defaults

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/defaulter"
	"github.com/deploysync/deploysync/internal/kversion"
)

// DeploymentUpdate returns the Deployment the kube-apiserver of the given
// minor stores when a client updates old (the stored object, as read
// back) with updated (a manifest, as written): updated gets the defaults
// and the conversion round trip of [Deployment]; then, as the registry's
// update strategy does, the status is old's, a template field whose
// feature gate is off at that minor is dropped unless old's template uses
// it (as that gate's in-use check asks: most ask whether the field is set,
// some less, such as 1.33's pod-level resources, in use only with a
// request or a limit), and metadata.generation is
// old's plus one where the spec or the annotations differ from old's
// (semantically, after defaulting; before 1.37 the template's legacy
// init-container annotations, which the conversion drops from both, never
// count), else old's. Fields an apiserver fills from its own state (uid,
// creationTimestamp, resourceVersion, managedFields) are left as updated
// gives them. version is as for [Deployment]; a Deployment the library's
// Sync would refuse is an [*deployutil.InputError]. Neither argument is
// modified.
func DeploymentUpdate(version string, old, updated *appsv1.Deployment) (*appsv1.Deployment, error) {
	g, err := minorGates(version)
	if err != nil {
		return nil, err
	}
	if old == nil || updated == nil {
		return nil, &deployutil.InputError{Object: "Deployment", Field: "deployment", Kind: deployutil.Required, Detail: "no old or updated Deployment given", Rule: ruleInput}
	}
	old = old.DeepCopy()
	readStored(g, old, &old.Spec.Template)
	out, err := decodeDeployment(g, updated)
	if err != nil {
		return nil, err
	}
	out.Status = *old.Status.DeepCopy()
	dropDisabled(&out.Spec.Template, g, &old.Spec.Template)
	// The strategy compares the internal objects: old's rollback
	// annotation is read as a number too.
	cmp := &appsv1.Deployment{ObjectMeta: *old.ObjectMeta.DeepCopy()}
	if normalizeRollbackTo(cmp) != nil {
		cmp.Annotations = old.Annotations
	}
	out.Generation = old.Generation
	if !equality.Semantic.DeepEqual(out.Spec, old.Spec) || !equality.Semantic.DeepEqual(out.Annotations, cmp.Annotations) {
		out.Generation = old.Generation + 1
	}
	return storedDeployment(out)
}

// ReplicaSetUpdate is [DeploymentUpdate] for a ReplicaSet: updated gets
// the defaults of [ReplicaSet], the status is old's, a disabled gate's
// fields are dropped unless old's template uses them, and
// metadata.generation is old's plus one where the spec differs from old's
// (the annotations do not count, as the ReplicaSet strategy has it), else
// old's. A ReplicaSet the library's Sync would refuse is an
// [*deployutil.InputError]. Neither argument is modified.
func ReplicaSetUpdate(version string, old, updated *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	g, err := minorGates(version)
	if err != nil {
		return nil, err
	}
	if old == nil || updated == nil {
		return nil, &deployutil.InputError{Object: "ReplicaSet", Field: "replicaSet", Kind: deployutil.Required, Detail: "no old or updated ReplicaSet given", Rule: ruleInput}
	}
	old = old.DeepCopy()
	readStored(g, old, &old.Spec.Template)
	out := decodeReplicaSet(g, updated)
	out.Status = *old.Status.DeepCopy()
	dropDisabled(&out.Spec.Template, g, &old.Spec.Template)
	out.Generation = old.Generation
	if !equality.Semantic.DeepEqual(out.Spec, old.Spec) {
		out.Generation = old.Generation + 1
	}
	return storedReplicaSet(out)
}

// PodTemplateUpdate is [PodTemplate] for an update of a core/v1
// PodTemplate whose stored template is old: a disabled gate's fields of
// updated are kept where old uses them. Neither argument is modified.
func PodTemplateUpdate(version string, old, updated *corev1.PodTemplateSpec) (*corev1.PodTemplateSpec, error) {
	g, err := minorGates(version)
	if err != nil {
		return nil, err
	}
	if old == nil || updated == nil {
		return nil, &deployutil.InputError{Object: "PodTemplateSpec", Field: "template", Kind: deployutil.Required, Detail: "no old or updated pod template given", Rule: ruleInput}
	}
	old = old.DeepCopy()
	readStored(g, old, old)
	out := updated.DeepCopy()
	dropUnknown(out, g.minor)
	defaulter.Template(out, g.ImageVolume)
	dropDisabled(out, g, old)
	if err := readBack(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// readStored makes obj, a copy of the stored object whose pod template is
// t, what the minor's apiserver reads: decoded into its own types (a field
// that minor does not know is not there to be used) and, before 1.37,
// through the conversion that drops the legacy init-container annotations
// (from the stored object too, so they never differ from an update's).
func readStored(g gates, obj any, t *corev1.PodTemplateSpec) {
	dropUnknown(obj, g.minor)
	if g.minor < kversion.V1_37 {
		dropInitContainerAnnotations(t)
	}
}
