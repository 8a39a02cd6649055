package kubectl_test

import (
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/internal/kversion"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
	"github.com/deploysync/deploysync/kubectl"
)

// TestDescribeTemplateFor: the lines of `kubectl rollout history
// --revision=N` that change with kubectl's minor (k8s.io/kubectl
// pkg/describe/describe.go of each version).
func TestDescribeTemplateFor(t *testing.T) {
	tpl := &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: "nginx",
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 80, HostPort: 8080, Protocol: corev1.ProtocolTCP}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(80)}},
					PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}}},
			SchedulingGroup: &corev1.PodSchedulingGroup{PodGroupName: ptr.To("g")},
		},
	}
	tests := []struct {
		version string
		has     []string
		hasNot  []string
		reason  string
	}{
		{"1.33", []string{"Port:\t80/TCP\n", "Host Port:\t8080/TCP\n", "#success=1 #failure=3"}, []string{"(http)", "SchedulingGroup"},
			"v0.33.5: describeContainerPorts prints %d/%s only; DescribeProbe's #success/#failure; no schedulingGroup field"},
		{"1.34", []string{"Port:\t80/TCP (http)\n", "Host Port:\t8080/TCP (http)\n", "#success=1 #failure=3"}, []string{"SchedulingGroup"},
			"v0.34.4 adds the port name in parentheses"},
		{"1.35", []string{"80/TCP (http)", "#success=1"}, []string{"SchedulingGroup"},
			"v0.35.4 has no schedulingGroup field (it prints workloadRef, which this API no longer has)"},
		{"1.36", []string{"80/TCP (http)", "#success=1 #failure=3", "  SchedulingGroup:\n  PodGroupName:\tg\n"}, nil,
			"v0.36.3 prints the scheduling group"},
		{"v1.37.2", []string{"80/TCP (http)", "successThreshold=1 failureThreshold=3", "SchedulingGroup:"}, []string{"#success"},
			"v0.37.2's DescribeProbe spells the thresholds out"},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			got, err := kubectl.DescribeTemplateFor(tt.version, tpl)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.has {
				if !strings.Contains(got, s) {
					t.Errorf("missing %q (%s)\n%s", s, tt.reason, got)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(got, s) {
					t.Errorf("has %q (%s)\n%s", s, tt.reason, got)
				}
			}
		})
	}
	newest, err := kubectl.DescribeTemplate(tpl)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := kubectl.DescribeTemplateFor(kversion.Newest.String(), tpl); got != newest {
		t.Errorf("DescribeTemplateFor(newest) differs from DescribeTemplate")
	}
	var ue *kversion.UnsupportedError
	if _, err := kubectl.DescribeTemplateFor("1.32", tpl); !errors.As(err, &ue) {
		t.Errorf("1.32: %v, want the unsupported-version error", err)
	}
}

// TestUndoWarning: kubectl 1.36 added the warning about the last-applied
// annotation (k8s.io/kubectl v0.36.3 pkg/cmd/rollout/rollout_undo.go,
// warningRollbackApplyManagedResource, written before the rollback runs).
func TestUndoWarning(t *testing.T) {
	applied := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web",
		Annotations: map[string]string{corev1.LastAppliedConfigAnnotation: "{}"}}}
	plain := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	want := "Warning: resource deployments/web was previously managed with 'kubectl apply'. " +
		"Rolling back will not update the kubectl.kubernetes.io/last-applied-configuration annotation, " +
		"which may cause unexpected behavior on future 'kubectl apply' operations. " +
		"Consider using 'kubectl apply' with your previous configuration file instead.\n"
	tests := []struct {
		version string
		d       *appsv1.Deployment
		want    string
		reason  string
	}{
		{"1.33", applied, "", "no warning before 1.36"},
		{"1.35", applied, "", "v0.35.4's undo writes nothing to stderr before rolling back"},
		{"1.36", applied, want, "v0.36.3 warns when the annotation is there"},
		{"1.37", applied, want, "v0.37.2 as v0.36.3"},
		{"1.37", plain, "", "no annotation, no warning"},
	}
	for _, tt := range tests {
		got, err := kubectl.UndoWarning(tt.version, tt.d)
		if err != nil || got != tt.want {
			t.Errorf("%s: UndoWarning = %q, %v; want %q (%s)", tt.version, got, err, tt.want, tt.reason)
		}
	}
}

// TestHistoryTextForMissingRevision: every minor's kubectl answers a
// missing --revision alike (rollout_history.go and polymorphichelpers'
// history.go are the same from v0.33.5 to v0.37.2 on this path).
func TestHistoryTextForMissingRevision(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "d-uid"},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default", UID: "rs-uid",
		Labels:          map[string]string{"app": "web"},
		Annotations:     map[string]string{"deployment.kubernetes.io/revision": "1"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d-uid", Controller: ptr.To(true)}}},
		Spec: appsv1.ReplicaSetSpec{Selector: d.Spec.Selector, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}}}}
	for _, v := range kversion.SupportedStrings() {
		_, err := kubectl.HistoryTextFor(v, d, []*appsv1.ReplicaSet{rs}, 7)
		if err == nil || err.Error() != "unable to find the specified revision" {
			t.Errorf("%s: %v, want kubectl's \"unable to find the specified revision\"", v, err)
		}
		want, _ := kubectl.HistoryText(d, []*appsv1.ReplicaSet{rs}, 0)
		if got, err := kubectl.HistoryTextFor(v, d, []*appsv1.ReplicaSet{rs}, 0); err != nil || got != want {
			t.Errorf("%s: the table differs from 1.37's: %q, %v", v, got, err)
		}
	}
}

// TestUndoFor: the bytes of `kubectl rollout undo`'s patch per minor, on the
// scenario "template change" undone to revision 1. The expected patches are
// kubectl's own, as recorded from k8s.io/kubectl v0.33.5, v0.34.4 and
// v0.37.2 (conformance/testdata/minors/<minor>/kubectl.jsonl.gz).
func TestUndoFor(t *testing.T) {
	var sc *scenarios.Scenario
	for _, s := range scenarios.All() {
		if s.Name == "template change" {
			sc = &s
		}
	}
	if sc == nil {
		t.Fatal("no scenario \"template change\"")
	}
	const (
		v133 = `[{"op":"replace","path":"/spec/template","value":{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1","resources":{}}]}}},{"op":"replace","path":"/metadata/annotations","value":{}}]`
		v134 = `[{"op":"replace","path":"/spec/template","value":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1","resources":{}}]}}},{"op":"replace","path":"/metadata/annotations","value":{}}]`
	)
	tests := []struct {
		version string
		want    string
		reason  string
	}{
		{"1.33", v133, "k8s.io/apimachinery v0.33.5: ObjectMeta.creationTimestamp has no omitzero, a zero time is written as null"},
		{"v1.33.5-eks-1", v133, "a server version string of 1.33"},
		{"1.34", v134, "v0.34.4 adds omitzero: the zero creationTimestamp is left out"},
		{"1.37", v134, "as Undo"},
	}
	for _, tc := range tests {
		p, err := kubectl.UndoFor(tc.version, sc.State.Deployment, sc.State.ReplicaSets, 1)
		if err != nil {
			t.Fatalf("%s: %v (%s)", tc.version, err, tc.reason)
		}
		if string(p.Patch) != tc.want {
			t.Errorf("%s: patch\n%s\nwant\n%s\n(%s)", tc.version, p.Patch, tc.want, tc.reason)
		}
		if _, err := p.ApplyTo(sc.State.Deployment); err != nil {
			t.Errorf("%s: the patch does not apply: %v (%s)", tc.version, err, tc.reason)
		}
	}
	def, err := kubectl.Undo(sc.State.Deployment, sc.State.ReplicaSets, 1)
	if err != nil || string(def.Patch) != v134 {
		t.Errorf("Undo: %v %s, want 1.37's patch", err, def)
	}
	if _, err := kubectl.UndoFor("1.32", sc.State.Deployment, sc.State.ReplicaSets, 1); err == nil || !strings.Contains(err.Error(), "1.33") {
		t.Errorf("UndoFor(1.32): %v, want an error listing the supported minors", err)
	}
}
