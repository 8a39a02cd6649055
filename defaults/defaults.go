package defaults

import (
	"encoding/json"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/defaulter"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/kversion"
)

// Deployment returns a Deployment as the kube-apiserver of the given
// minor stores it on create (see the package documentation for the steps).
// version is parsed as deploysync.WithKubernetesVersion parses it: "" for
// the library's default minor, "1.34", "v1.34.4-eks-1a2b3c"; a version the
// library does not support is an error (*deploysync.UnsupportedVersionError,
// which lists the supported minors).
//
// On top of the pod template's defaults (see [PodTemplate]) it sets
// spec.replicas 1, strategy RollingUpdate with maxSurge and maxUnavailable
// 25%, revisionHistoryLimit 10 and progressDeadlineSeconds 600 where
// unset, normalizes the deprecated rollback annotation, clears the status
// and sets metadata.generation to 1; apiVersion and kind are apps/v1
// Deployment. A Deployment the apiserver would refuse (a rollback
// annotation that is no integer, and what the library's Sync refuses: an
// invalid name, a selector that does not match the template's labels, an
// invalid strategy, ...) is an [*deployutil.InputError].
func Deployment(version string, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	g, err := minorGates(version)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, &deployutil.InputError{Object: "Deployment", Field: "deployment", Kind: deployutil.Required, Detail: "no Deployment given", Rule: ruleInput}
	}
	out, err := decodeDeployment(g, d)
	if err != nil {
		return nil, err
	}
	out.Status = appsv1.DeploymentStatus{}
	out.Generation = 1
	dropDisabled(&out.Spec.Template, g, nil)
	return storedDeployment(out)
}

// decodeDeployment is the create and update paths' first two steps for a
// Deployment: a copy decoded into the minor's types, defaulted, and its
// rollback annotation through the conversion.
func decodeDeployment(g gates, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	out := d.DeepCopy()
	dropUnknown(out, g.minor)
	defaulter.DeploymentSpec(&out.Spec)
	defaulter.Template(&out.Spec.Template, g.ImageVolume)
	if err := normalizeRollbackTo(out); err != nil {
		return nil, err
	}
	return out, nil
}

// storedDeployment is the paths' last step: the Deployment read back, and
// refused if the library's validation refuses it.
func storedDeployment(out *appsv1.Deployment) (*appsv1.Deployment, error) {
	out.APIVersion, out.Kind = "apps/v1", "Deployment"
	if err := readBack(&out); err != nil {
		return nil, err
	}
	if err := facts.Validate(out, nil, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// ReplicaSet is [Deployment] for a ReplicaSet: spec.replicas 1 where unset,
// the pod template's defaults, the status cleared, metadata.generation 1;
// apiVersion and kind are apps/v1 ReplicaSet. A ReplicaSet the library's
// Sync would refuse is an [*deployutil.InputError].
func ReplicaSet(version string, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	g, err := minorGates(version)
	if err != nil {
		return nil, err
	}
	if rs == nil {
		return nil, &deployutil.InputError{Object: "ReplicaSet", Field: "replicaSet", Kind: deployutil.Required, Detail: "no ReplicaSet given", Rule: ruleInput}
	}
	out := decodeReplicaSet(g, rs)
	out.Status = appsv1.ReplicaSetStatus{}
	out.Generation = 1
	dropDisabled(&out.Spec.Template, g, nil)
	return storedReplicaSet(out)
}

// decodeReplicaSet is [decodeDeployment] for a ReplicaSet.
func decodeReplicaSet(g gates, rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	out := rs.DeepCopy()
	dropUnknown(out, g.minor)
	defaulter.ReplicaSetSpec(&out.Spec)
	defaulter.Template(&out.Spec.Template, g.ImageVolume)
	return out
}

// storedReplicaSet is [storedDeployment] for a ReplicaSet.
func storedReplicaSet(out *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	out.APIVersion, out.Kind = "apps/v1", "ReplicaSet"
	if err := readBack(&out); err != nil {
		return nil, err
	}
	if err := facts.ValidateReplicaSet(out); err != nil {
		return nil, err
	}
	return out, nil
}

// PodTemplate returns a pod template as the kube-apiserver of the given
// minor stores it inside a Deployment or ReplicaSet it creates: the
// core/v1 defaults of a template, the fields whose feature gate is off at
// that minor dropped, and read back through JSON, so that
// deployutil.ComputeHash over it gives the pod-template-hash the cluster
// gives. version is as for [Deployment].
func PodTemplate(version string, t *corev1.PodTemplateSpec) (*corev1.PodTemplateSpec, error) {
	g, err := minorGates(version)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, &deployutil.InputError{Object: "PodTemplateSpec", Field: "template", Kind: deployutil.Required, Detail: "no pod template given", Rule: ruleInput}
	}
	out := t.DeepCopy()
	dropUnknown(out, g.minor)
	defaulter.Template(out, g.ImageVolume)
	dropDisabled(out, g, nil)
	if err := readBack(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// ruleInput is the rule of an error for a nil argument.
const ruleInput = "defaults: an object to default"

// minorGates parses a version ("" for the default minor) and returns its
// default gates.
func minorGates(version string) (gates, error) {
	m := kversion.Default
	if version != "" {
		var err error
		if m, err = kversion.Parse(version); err != nil {
			return gates{}, err
		}
	}
	return defaultGates(m), nil
}

// normalizeRollbackTo does to the deprecated rollback annotation what the
// conversion to the internal type and back does: a non-empty value is read
// as an int64 (an error if it is none) and printed back in decimal, and an
// empty one is removed.
func normalizeRollbackTo(d *appsv1.Deployment) error {
	v, ok := d.Annotations[appsv1.DeprecatedRollbackTo]
	if !ok {
		return nil
	}
	if v == "" {
		delete(d.Annotations, appsv1.DeprecatedRollbackTo)
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return &deployutil.InputError{
			Object: "Deployment " + d.Namespace + "/" + d.Name,
			Field:  "metadata.annotations[" + appsv1.DeprecatedRollbackTo + "]",
			Kind:   deployutil.Invalid, Value: v,
			Detail: "must be a revision number (an int64)",
			Rule:   "apps/v1 Convert_v1_Deployment_To_apps_Deployment",
		}
	}
	d.Annotations[appsv1.DeprecatedRollbackTo] = strconv.FormatInt(n, 10)
	return nil
}

// readBack replaces *p by the object decoded from its JSON, as a client
// reads the stored object.
func readBack[T any](p **T) error {
	b, err := json.Marshal(*p)
	if err != nil {
		return fmt.Errorf("defaults: encoding the object: %w", err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("defaults: decoding the object: %w", err)
	}
	*p = &out
	return nil
}
