// Package defaulting holds the differential tests of the library's package
// defaults: the same input through upstream's own create path of v1.37.2
// (the scheme's defaulters, the conversion to the internal type, the
// registry's create strategy, the conversion back) and through
// defaults.Deployment, compared as JSON byte for byte.
package defaulting

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install" // apps/v1 defaulters and conversions
	"k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install" // core/v1 defaulters and conversions
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
)

// Deployment runs a Deployment through the path a v1.37.2 apiserver takes
// on create, at its default feature gates: the scheme's defaulting, the
// conversion to the internal apps.Deployment (an error if it fails), the
// registry strategy's PrepareForCreate and the conversion back to apps/v1.
// valid reports whether the strategy's Validate accepts the internal
// object.
func Deployment(in *appsv1.Deployment) (out *appsv1.Deployment, valid bool, err error) {
	var internal apps.Deployment
	out = &appsv1.Deployment{}
	err = throughInternal(in.DeepCopy(), &internal, out, "apps/v1", func(ctx context.Context) {
		deployment.Strategy.PrepareForCreate(ctx, &internal)
		valid = len(deployment.Strategy.Validate(ctx, &internal)) == 0
	})
	if err != nil {
		return nil, false, err
	}
	out.APIVersion, out.Kind = "apps/v1", "Deployment"
	return out, valid, nil
}

// ReplicaSet is [Deployment] for a ReplicaSet.
func ReplicaSet(in *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	var internal apps.ReplicaSet
	out := &appsv1.ReplicaSet{}
	if err := throughInternal(in.DeepCopy(), &internal, out, "apps/v1", func(ctx context.Context) {
		replicaset.Strategy.PrepareForCreate(ctx, &internal)
	}); err != nil {
		return nil, err
	}
	out.APIVersion, out.Kind = "apps/v1", "ReplicaSet"
	return out, nil
}

// PodTemplate runs a template through a core/v1 PodTemplate's create path
// (its defaulting, conversion and the podtemplate strategy's
// PrepareForCreate) and returns the template.
func PodTemplate(in *corev1.PodTemplateSpec) (*corev1.PodTemplateSpec, error) {
	var internal core.PodTemplate
	out := &corev1.PodTemplate{}
	if err := throughInternal(&corev1.PodTemplate{Template: *in.DeepCopy()}, &internal, out, "v1", func(ctx context.Context) {
		podtemplate.Strategy.PrepareForCreate(ctx, &internal)
	}); err != nil {
		return nil, err
	}
	return &out.Template, nil
}

// DeploymentUpdate runs an update through the path a v1.37.2 apiserver
// takes, at its default feature gates: old (the stored object) converted
// to the internal apps.Deployment as it is, updated defaulted and
// converted, the stored generation kept (as rest.BeforeUpdate keeps it: a
// request cannot set it), the registry strategy's PrepareForUpdate, and
// the conversion back to apps/v1.
func DeploymentUpdate(old, updated *appsv1.Deployment) (*appsv1.Deployment, error) {
	var stored, internal apps.Deployment
	if err := storedInternal(old.DeepCopy(), &stored); err != nil {
		return nil, err
	}
	out := &appsv1.Deployment{}
	if err := throughInternal(updated.DeepCopy(), &internal, out, "apps/v1", func(ctx context.Context) {
		internal.Generation = stored.Generation
		deployment.Strategy.PrepareForUpdate(ctx, &internal, &stored)
	}); err != nil {
		return nil, err
	}
	out.APIVersion, out.Kind = "apps/v1", "Deployment"
	return out, nil
}

// ReplicaSetUpdate is [DeploymentUpdate] for a ReplicaSet.
func ReplicaSetUpdate(old, updated *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	var stored, internal apps.ReplicaSet
	if err := storedInternal(old.DeepCopy(), &stored); err != nil {
		return nil, err
	}
	out := &appsv1.ReplicaSet{}
	if err := throughInternal(updated.DeepCopy(), &internal, out, "apps/v1", func(ctx context.Context) {
		internal.Generation = stored.Generation
		replicaset.Strategy.PrepareForUpdate(ctx, &internal, &stored)
	}); err != nil {
		return nil, err
	}
	out.APIVersion, out.Kind = "apps/v1", "ReplicaSet"
	return out, nil
}

// PodTemplateUpdate runs an update of a core/v1 PodTemplate (stored
// template old, as read back) through its update path and returns the
// template stored.
func PodTemplateUpdate(old, updated *corev1.PodTemplateSpec) (*corev1.PodTemplateSpec, error) {
	var stored, internal core.PodTemplate
	if err := storedInternal(&corev1.PodTemplate{Template: *old.DeepCopy()}, &stored); err != nil {
		return nil, err
	}
	out := &corev1.PodTemplate{}
	if err := throughInternal(&corev1.PodTemplate{Template: *updated.DeepCopy()}, &internal, out, "v1", func(ctx context.Context) {
		podtemplate.Strategy.PrepareForUpdate(ctx, &internal, &stored)
	}); err != nil {
		return nil, err
	}
	return &out.Template, nil
}

// throughInternal is the part every path shares: obj (the caller's copy)
// defaulted by the scheme and converted into internal, strategy run on
// internal, and internal converted back into out. version names out's
// group version in an error.
func throughInternal(obj runtime.Object, internal, out any, version string, strategy func(context.Context)) error {
	legacyscheme.Scheme.Default(obj)
	if err := legacyscheme.Scheme.Convert(obj, internal, nil); err != nil {
		return fmt.Errorf("to internal: %w", err)
	}
	strategy(context.Background())
	if err := legacyscheme.Scheme.Convert(internal, out, nil); err != nil {
		return fmt.Errorf("to %s: %w", version, err)
	}
	return nil
}

// storedInternal converts a stored object (the caller's copy) into the
// internal type as it is, undefaulted, as the apiserver reads it.
func storedInternal(old runtime.Object, internal any) error {
	if err := legacyscheme.Scheme.Convert(old, internal, nil); err != nil {
		return fmt.Errorf("old to internal: %w", err)
	}
	return nil
}

// ReplicaSetOf returns the ReplicaSet the update tests make of a
// Deployment: its metadata, replicas, minReadySeconds, selector and
// template, and its status's replicas and observed generation.
func ReplicaSetOf(d *appsv1.Deployment) *appsv1.ReplicaSet {
	d = d.DeepCopy()
	return &appsv1.ReplicaSet{
		ObjectMeta: d.ObjectMeta,
		Spec:       appsv1.ReplicaSetSpec{Replicas: d.Spec.Replicas, MinReadySeconds: d.Spec.MinReadySeconds, Selector: d.Spec.Selector, Template: d.Spec.Template},
		Status:     appsv1.ReplicaSetStatus{Replicas: d.Status.Replicas, ObservedGeneration: d.Status.ObservedGeneration},
	}
}

// Canonical returns the JSON b with every object member whose value is
// null left out, and the members in key order: the form the recordings'
// digests are taken of. A null member decodes as an absent one, but
// k8s.io/apimachinery before v0.34 writes an unset creationTimestamp of
// a pod template as null where later versions leave it out, so the same
// object has other bytes from 1.33's code than from the library's. b that
// is not JSON is returned as it is.
func Canonical(b []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return b
	}
	out, err := json.Marshal(dropNulls(v))
	if err != nil {
		return b
	}
	return out
}

// dropNulls removes, in place, the null members of every object in v.
func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = dropNulls(e)
		}
	case []any:
		for i, e := range x {
			x[i] = dropNulls(e)
		}
	}
	return v
}
