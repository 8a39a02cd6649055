package deployutil_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

const hashKey = appsv1.DefaultDeploymentUniqueLabelKey

// TestEqualIgnoreHash restates upstream's TestEqualIgnoreHash (10 rows),
// each checked both ways round and, as upstream, checking that the
// templates' label maps are left alone.
func TestEqualIgnoreHash(t *testing.T) {
	tpl := func(name, node string, annotations, labels map[string]string) *corev1.PodTemplateSpec {
		return &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations, Labels: labels}, Spec: corev1.PodSpec{NodeName: node}}
	}
	none := map[string]string{}
	tests := []struct {
		name   string
		a, b   *corev1.PodTemplateSpec
		want   bool
		reason string
	}{
		{name: "same spec, same labels",
			a: tpl("foo", "foo-node", none, map[string]string{hashKey: "value-1", "something": "else"}),
			b: tpl("foo", "foo-node", none, map[string]string{hashKey: "value-1", "something": "else"}), want: true,
			reason: "upstream: identical templates"},
		{name: "only the hash differs",
			a: tpl("foo", "foo-node", none, map[string]string{hashKey: "value-1", "something": "else"}),
			b: tpl("foo", "foo-node", none, map[string]string{hashKey: "value-2", "something": "else"}), want: true,
			reason: "upstream: the pod-template-hash label is ignored"},
		{name: "one without hash",
			a: tpl("foo", "foo-node", none, map[string]string{"something": "else"}),
			b: tpl("foo", "foo-node", none, map[string]string{hashKey: "value-2", "something": "else"}), want: true,
			reason: "upstream: a template without the hash label equals one with it"},
		{name: "different label, one without hash, same count",
			a: tpl("foo", "foo-node", none, map[string]string{"something": "else"}),
			b: tpl("foo", "foo-node", none, map[string]string{hashKey: "value-2"}), want: false,
			reason: "upstream: ignoring the hash leaves {something} against {}"},
		{name: "different label, other without hash, same count",
			a: tpl("foo", "foo-node", none, map[string]string{hashKey: "value-1"}),
			b: tpl("foo", "foo-node", none, map[string]string{"something": "else"}), want: false,
			reason: "upstream: the same the other way round"},
		{name: "different label, same hash",
			a: tpl("foo", "foo-node", none, map[string]string{hashKey: "value-1"}),
			b: tpl("foo", "foo-node", none, map[string]string{hashKey: "value-1", "something": "else"}), want: false,
			reason: "upstream: an equal hash does not make other labels equal"},
		{name: "different annotations",
			a: tpl("foo", "foo-node", map[string]string{"former": "value"}, map[string]string{hashKey: "value-1", "something": "else"}),
			b: tpl("foo", "foo-node", map[string]string{"latter": "value"}, map[string]string{hashKey: "value-1", "something": "else"}), want: false,
			reason: "upstream: template annotations count"},
		{name: "different name and hash",
			a: tpl("foo-1", "foo-node", none, map[string]string{hashKey: "value-1", "something": "else"}),
			b: tpl("foo-2", "foo-node", none, map[string]string{hashKey: "value-2", "something": "else"}), want: false,
			reason: "upstream: the template name counts"},
		{name: "different spec, one without hash",
			a: tpl("foo-1", "foo-node-1", none, map[string]string{"something": "else"}),
			b: tpl("foo-2", "foo-node-2", none, map[string]string{hashKey: "value-2", "something": "else"}), want: false,
			reason: "upstream: the pod spec counts"},
		{name: "different spec, different labels",
			a: tpl("foo", "foo-node-1", none, map[string]string{"something": "else"}),
			b: tpl("foo", "foo-node-2", none, map[string]string{"nothing": "else"}), want: false,
			reason: "upstream: nothing in common"},
		{name: "nil and empty",
			a: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}}},
			b: &corev1.PodTemplateSpec{}, want: true,
			reason: "semantic equality: a nil map equals an empty one (they hash differently)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			for _, pair := range [][2]*corev1.PodTemplateSpec{{tt.a, tt.b}, {tt.b, tt.a}} {
				frozen := testutil.Freeze(t, pair[0], pair[1])
				got := deployutil.EqualIgnoreHash(pair[0], pair[1])
				frozen.Check(t)
				if got != tt.want {
					t.Errorf("EqualIgnoreHash = %v, want %v (%s)", got, tt.want, tt.reason)
				}
			}
		})
	}
}

// TestFindNewReplicaSet restates upstream's TestFindNewReplicaSet (3 rows).
func TestFindNewReplicaSet(t *testing.T) {
	now := metav1.NewTime(time.Date(2017, 2, 15, 18, 49, 0, 0, time.UTC))
	later := metav1.NewTime(now.Add(time.Minute))
	d := testutil.ImageDeployment("nginx")
	newRS := testutil.TemplateReplicaSet(d, "nginx-new", "hash", later)
	newRSDup := testutil.TemplateReplicaSet(d, "nginx-dup", "different-hash", now)
	old := testutil.ImageDeployment("nginx")
	old.Spec.Template.Spec.Containers[0].Name = "nginx-old-1"
	oldRS := testutil.TemplateReplicaSet(old, "nginx-old", "", metav1.Time{})
	tests := []struct {
		name   string
		rss    []*appsv1.ReplicaSet
		want   *appsv1.ReplicaSet
		reason string
	}{
		{name: "same template, other hash", rss: []*appsv1.ReplicaSet{newRS, oldRS}, want: newRS,
			reason: "upstream: the template decides, not the hash"},
		{name: "oldest of two", rss: []*appsv1.ReplicaSet{newRS, oldRS, newRSDup}, want: newRSDup,
			reason: "upstream: with two matching ReplicaSets, the oldest is the new one"},
		{name: "none", rss: []*appsv1.ReplicaSet{oldRS}, want: nil,
			reason: "upstream: no ReplicaSet has the template"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, d, tt.rss)
			got := deployutil.FindNewReplicaSet(d, tt.rss)
			frozen.Check(t)
			if got != tt.want {
				t.Errorf("FindNewReplicaSet = %v, want %v (%s)", name(got), name(tt.want), tt.reason)
			}
		})
	}
}

func name(rs *appsv1.ReplicaSet) string {
	if rs == nil {
		return "<nil>"
	}
	return rs.Name
}
