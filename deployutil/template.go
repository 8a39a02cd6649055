package deployutil

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// The comparison of everything but the labels is typed code generated from
// the k8s.io/api types (see internal/equalgen), one function per type: the
// reflective walk equality.Semantic does, without reflection.
//go:generate go run ./internal/equalgen/gen -o zz_generated_equal.go

// EqualIgnoreHash reports whether two pod templates are semantically equal
// once the pod-template-hash label is ignored: nil and empty maps and slices
// are equal, quantities compare by value, times as instants — the rules of
// k8s.io/apimachinery's equality.Semantic, which upstream uses. This is how
// the new ReplicaSet is recognised — never by name or hash — and what a user
// needs to tell whether a ReplicaSet runs a given template.
//
// Neither template is copied or modified. Templates that differ in their
// containers' names or images, or in their labels, are told apart without
// walking the rest.
func EqualIgnoreHash(a, b *corev1.PodTemplateSpec) bool {
	if !sameContainers(a.Spec.Containers, b.Spec.Containers) || !sameContainers(a.Spec.InitContainers, b.Spec.InitContainers) ||
		!equalLabelsIgnoringHash(a.Labels, b.Labels) {
		return false
	}
	return equalTemplateExceptLabels(a, b)
}

// sameContainers is a necessary condition of semantic equality, cheap to
// check: as many containers, with the same names and images.
func sameContainers(a, b []corev1.Container) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Image != b[i].Image {
			return false
		}
	}
	return true
}

// equalLabelsIgnoringHash compares two label maps as semantic equality
// would once the hash label is deleted from both.
func equalLabelsIgnoringHash(a, b map[string]string) bool {
	n := 0
	for k, v := range a {
		if k == PodTemplateHashLabel {
			continue
		}
		if w, ok := b[k]; !ok || w != v {
			return false
		}
		n++
	}
	m := len(b)
	if _, ok := b[PodTemplateHashLabel]; ok {
		m--
	}
	return n == m
}

// FindNewReplicaSet returns the Deployment's new ReplicaSet: the oldest of
// rss (by creation time, then name) whose template equals the Deployment's
// ignoring the hash label (see [EqualIgnoreHash]), or nil. A user needs it to
// tell which ReplicaSet a Deployment's current template runs in, as the
// controller tells it.
//
// Upstream sorts the list and takes the first match; the oldest match is the
// same ReplicaSet, found here in one pass without allocating, and without
// comparing the templates of ReplicaSets newer than a match already found.
func FindNewReplicaSet(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	var found *appsv1.ReplicaSet
	for _, rs := range rss {
		if found != nil && !olderFirst(rs, found) {
			continue
		}
		if EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			found = rs
		}
	}
	return found
}
