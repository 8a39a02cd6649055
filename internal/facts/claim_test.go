package facts_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

type change struct {
	Name  string
	Adopt bool
}

// TestClaim restates upstream's TestGetReplicaSetsForDeployment (two
// Deployments with one selector, each claiming only its own ReplicaSet) and
// TestGetReplicaSetsForDeploymentAdoptRelease (an orphan adopted, a stray
// released), and adds the remaining rules of ClaimObject.
func TestClaim(t *testing.T) {
	sel := map[string]string{"foo": "bar"}
	dep := func(name string) *appsv1.Deployment {
		d := testutil.ImageDeployment("nginx")
		d.Name, d.UID = name, types.UID("uid-"+name)
		d.Spec.Selector = &metav1.LabelSelector{MatchLabels: sel}
		d.Spec.Template.Labels = map[string]string{"foo": "bar"}
		return d
	}
	d1, d2 := dep("foo"), dep("bar")
	owned := func(d *appsv1.Deployment, name string) *appsv1.ReplicaSet {
		rs := testutil.TemplateReplicaSet(d, name, "", metav1.Time{})
		rs.Labels = map[string]string{"foo": "bar"}
		return rs
	}
	orphan := func(name string) *appsv1.ReplicaSet {
		rs := owned(d1, name)
		rs.OwnerReferences = nil
		return rs
	}
	stray := owned(d1, "rsRelease")
	stray.Labels = map[string]string{"foo": "notbar"}
	deletingOrphan := orphan("rsDeleting")
	deletingOrphan.DeletionTimestamp = ptr.To(metav1.NewTime(time.Date(2017, 2, 15, 18, 49, 0, 0, time.UTC)))
	otherNS := orphan("rsOtherNamespace")
	otherNS.Namespace = "elsewhere"
	unmatchedOrphan := orphan("rsUnmatched")
	unmatchedOrphan.Labels = map[string]string{"foo": "baz"}
	deleting := dep("foo")
	deleting.DeletionTimestamp = ptr.To(metav1.NewTime(time.Date(2017, 2, 15, 18, 49, 0, 0, time.UTC)))
	bad := dep("foo")
	bad.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "foo", Operator: "Near"}}}

	tests := []struct {
		name        string
		d           *appsv1.Deployment
		rss         []*appsv1.ReplicaSet
		wantClaimed []string
		wantChanges []change
		wantErr     bool
		reason      string
	}{
		{name: "d1 claims its own", d: d1, rss: []*appsv1.ReplicaSet{owned(d1, "rs1"), owned(d2, "rs2")}, wantClaimed: []string{"rs1"},
			reason: "upstream: both ReplicaSets match both selectors, but rs2 is controlled by another Deployment"},
		{name: "d2 claims its own", d: d2, rss: []*appsv1.ReplicaSet{owned(d1, "rs1"), owned(d2, "rs2")}, wantClaimed: []string{"rs2"},
			reason: "upstream: and the other way round"},
		{name: "adopt and release", d: d1, rss: []*appsv1.ReplicaSet{orphan("rsAdopt"), stray}, wantClaimed: []string{"rsAdopt"},
			wantChanges: []change{{Name: "rsAdopt", Adopt: true}, {Name: "rsRelease"}},
			reason:      "upstream: the matching orphan is adopted and claimed; the owned one whose labels stopped matching is released, not claimed"},
		{name: "being deleted", d: deleting, rss: []*appsv1.ReplicaSet{owned(d1, "rs1"), orphan("rsAdopt"), stray}, wantClaimed: []string{"rs1"},
			reason: "a Deployment being deleted keeps what it owns and matches, adopts nothing and releases nothing"},
		{name: "orphans not adopted", d: d1, rss: []*appsv1.ReplicaSet{deletingOrphan, otherNS, unmatchedOrphan}, wantClaimed: nil,
			reason: "orphans being deleted, in another namespace, or not matching are left alone"},
		{name: "invalid selector", d: bad, rss: []*appsv1.ReplicaSet{owned(d1, "rs1")}, wantErr: true,
			reason: "upstream: deployment has invalid label selector"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.d, tt.rss)
			claimed, changes, err := facts.Claim(tt.d, tt.rss)
			frozen.Check(t)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v (%s)", err, tt.wantErr, tt.reason)
			}
			var got []change
			for _, c := range changes {
				if len(c.Why) == 0 {
					t.Errorf("change of %s has no reason", c.ReplicaSet.Name)
				}
				got = append(got, change{Name: c.ReplicaSet.Name, Adopt: c.Adopt})
			}
			if diff := cmp.Diff(tt.wantClaimed, names(claimed)); diff != "" {
				t.Errorf("claimed (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
			if diff := cmp.Diff(tt.wantChanges, got); diff != "" {
				t.Errorf("changes (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
		})
	}
}

// TestReleasePatch restates the single-owner rows of upstream's
// TestGeneratePatchBytesForDelete (3 of 5; the Deployment controller never
// releases several owners or finalizers at once).
func TestReleasePatch(t *testing.T) {
	tests := []struct {
		name      string
		rs, owner types.UID
		want      string
		reason    string
	}{
		{name: "structure", rs: "ss2", owner: "ss1", want: `{"metadata":{"uid":"ss2","ownerReferences":[{"$patch":"delete","uid":"ss1"}]}}`,
			reason: "upstream: the UID precondition, then a delete directive for the owner"},
		{name: "owner escaped", rs: "ss2", owner: `ss1"hello`, want: `{"metadata":{"uid":"ss2","ownerReferences":[{"$patch":"delete","uid":"ss1\"hello"}]}}`,
			reason: "upstream: the owner UID is JSON-escaped"},
		{name: "dependent escaped", rs: `ss2"hello`, owner: "ss1", want: `{"metadata":{"uid":"ss2\"hello","ownerReferences":[{"$patch":"delete","uid":"ss1"}]}}`,
			reason: "upstream: the dependent UID is JSON-escaped"},
		{name: "reference bytes", rs: "rs-uid", owner: "d-uid", want: `{"metadata":{"uid":"rs-uid","ownerReferences":[{"$patch":"delete","uid":"d-uid"}]}}`,
			reason: "reference Appendix A: RELEASE bytes produced by upstream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			if got := string(facts.ReleasePatch(tt.rs, tt.owner)); got != tt.want {
				t.Errorf("ReleasePatch = %s, want %s (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

func TestAdoptPatch(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", UID: "d-uid"}}
	tests := []struct {
		name   string
		rs     types.UID
		want   string
		reason string
	}{
		{name: "reference bytes", rs: "rs-uid",
			want:   `{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"d-uid","controller":true,"blockOwnerDeletion":true}],"uid":"rs-uid"}}`,
			reason: "reference Appendix A: ADOPT bytes produced by upstream, owner reference first, UID precondition last"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, d)
			got := string(facts.AdoptPatch(d, tt.rs))
			frozen.Check(t)
			if got != tt.want {
				t.Errorf("AdoptPatch = %s, want %s (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

func TestOwnerReferences(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", UID: "d-uid"}}
	ref := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d-uid", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
	other := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", UID: "cm-uid"}
	stale := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "old-name", UID: "d-uid"}
	tests := []struct {
		name        string
		refs        []metav1.OwnerReference
		wantAdopt   []metav1.OwnerReference
		wantRelease []metav1.OwnerReference
		reason      string
	}{
		{name: "none", refs: nil, wantAdopt: []metav1.OwnerReference{ref}, wantRelease: nil,
			reason: "adoption adds the controller reference; releasing nothing leaves nothing"},
		{name: "another owner", refs: []metav1.OwnerReference{other}, wantAdopt: []metav1.OwnerReference{ref, other}, wantRelease: []metav1.OwnerReference{other},
			reason: "other owners are kept by both patches; the strategic merge puts a new patch entry before the server's (conformance: upstream's patch through the fake apiserver's SMP)"},
		{name: "same UID in the middle", refs: []metav1.OwnerReference{other, stale}, wantAdopt: []metav1.OwnerReference{other, ref}, wantRelease: []metav1.OwnerReference{other},
			reason: "an existing entry with the Deployment's UID is merged where it stands"},
		{name: "same UID", refs: []metav1.OwnerReference{stale, other}, wantAdopt: []metav1.OwnerReference{ref, other}, wantRelease: []metav1.OwnerReference{other},
			reason: "the strategic merge patch merges owner references by UID: the entry is replaced in place, or deleted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			before := append([]metav1.OwnerReference(nil), tt.refs...)
			frozen := testutil.Freeze(t, d)
			defer frozen.Check(t)
			if diff := cmp.Diff(ref, deployutil.ControllerRef(d)); diff != "" {
				t.Errorf("ControllerRef (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAdopt, facts.WithControllerRef(tt.refs, d)); diff != "" {
				t.Errorf("WithControllerRef (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
			if diff := cmp.Diff(tt.wantRelease, facts.WithoutOwner(tt.refs, "d-uid")); diff != "" {
				t.Errorf("WithoutOwner (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
			if diff := cmp.Diff(before, tt.refs); diff != "" {
				t.Errorf("the argument was modified:\n%s", diff)
			}
		})
	}
}
