package replicaset_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/internal/kversion"
	"github.com/deploysync/deploysync/replicaset"
)

// TestMinors holds what each minor's pkg/controller/replicaset decides
// differently, read from k8s.io/kubernetes v1.33.5, v1.34.4, v1.35.4 and
// v1.36.3 against v1.37.2 (their manageReplicas, getPodsToDelete and
// ActivePodsWithRanks are the same; LogarithmicScaleDown is locked on).
func TestMinors(t *testing.T) {
	minReady := newRS(2)
	minReady.Spec.MinReadySeconds = 60
	twoReady := []*corev1.Pod{mkPod("a", ready(20*time.Second)), mkPod("b", ready(time.Hour))}
	renamed := func(p *corev1.Pod) *corev1.Pod {
		p.OwnerReferences[0].Name = "web-old" // our UID, another name
		return p
	}
	tests := []struct {
		name    string
		version string
		state   replicaset.State
		requeue time.Duration
		active  int
		term    *int32 // nil: unset
		reason  string
	}{
		{name: "1.33 requeue needs all ready", version: "1.33", state: replicaset.State{ReplicaSet: minReady.DeepCopy(), Pods: twoReady[:1]},
			active: 1, reason: "1.33 requeues only when ready == spec.replicas (1 ≠ 2)"},
		{name: "1.33 requeue after minReadySeconds", version: "1.33", state: replicaset.State{ReplicaSet: minReady, Pods: twoReady},
			requeue: 60 * time.Second, active: 2, reason: "1.33: 2 ready of 2, 1 available: minReadySeconds, not a's 40 s"},
		{name: "1.34 requeue at first availability", version: "1.34", state: replicaset.State{ReplicaSet: minReady, Pods: twoReady},
			requeue: 40 * time.Second, active: 2, reason: "1.34+: FindMinNextPodAvailabilityCheck, a is available in 60 − 20 s"},
		{name: "1.34 requeue with fewer ready", version: "1.34", state: replicaset.State{ReplicaSet: minReady, Pods: twoReady[:1]},
			requeue: 40 * time.Second, active: 1, reason: "1.34+: ready (1) ≠ available (0) is enough"},
		{name: "1.33 claims by UID", version: "1.33", state: replicaset.State{ReplicaSet: newRS(1), Pods: []*corev1.Pod{renamed(mkPod("a"))}},
			active: 1, reason: "1.33 lists the namespace and ClaimObject compares the controller's UID only"},
		{name: "1.34 lists by index key", version: "1.34", state: replicaset.State{ReplicaSet: newRS(1), Pods: []*corev1.Pod{renamed(mkPod("a"))}},
			active: 0, reason: "1.34+ FilterPodsByOwner keys on kind/name/UID: the pod is not listed"},
		{name: "1.34 gate off", version: "1.34", state: replicaset.State{ReplicaSet: newRS(1), Pods: []*corev1.Pod{mkPod("a"), mkPod("b", deleting())}},
			active: 1, reason: "DeploymentReplicaSetTerminatingReplicas is alpha, off, in 1.33 and 1.34"},
		{name: "1.35 gate on", version: "1.35", state: replicaset.State{ReplicaSet: newRS(1), Pods: []*corev1.Pod{mkPod("a"), mkPod("b", deleting())}},
			active: 1, term: ptrTo(1), reason: "the gate is beta, on, from 1.35"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			tt.state.Now = t0
			p, err := replicaset.Sync(tt.state, replicaset.WithKubernetesVersion(tt.version))
			if err != nil {
				t.Fatal(err)
			}
			var term *int32
			if p.Status != nil {
				term = p.Status.ReplicaSet.Status.TerminatingReplicas
			} else {
				term = tt.state.ReplicaSet.Status.TerminatingReplicas
			}
			if p.RequeueAfter != tt.requeue || p.Active != tt.active || (term == nil) != (tt.term == nil) || term != nil && *term != *tt.term {
				t.Errorf("requeue %v active %d terminating %v, want %v %d %v (%s)", p.RequeueAfter, p.Active, term, tt.requeue, tt.active, tt.term, tt.reason)
			}
			checkReasons(t, p)
		})
	}
}

func ptrTo(n int32) *int32 { return &n }

// TestMinorOrder133 shows 1.33 keeping the list order where 1.34+ puts the
// owned pods before the orphans: with every pod going (no sort), the order
// of deletes and adoptions is the list's.
func TestMinorOrder133(t *testing.T) {
	pods := []*corev1.Pod{mkPod("o", orphan()), mkPod("a")}
	for _, tt := range []struct {
		version string
		want    []string
		reason  string
	}{
		{"1.33", []string{"o", "a"}, "the namespace's list order"},
		{"1.34", []string{"a", "o"}, "owned pods, then orphans"},
	} {
		p, err := replicaset.Sync(replicaset.State{ReplicaSet: newRS(0), Pods: pods, Now: t0}, replicaset.WithKubernetesVersion(tt.version))
		if err != nil {
			t.Fatal(err)
		}
		if got := deleted(p); !slices.Equal(got, tt.want) {
			t.Errorf("%s: deletes %v, want %v (%s)", tt.version, got, tt.want, tt.reason)
		}
	}
}

// TestUnsupportedVersion checks the version error is kversion's.
func TestUnsupportedVersion(t *testing.T) {
	_, err := replicaset.Sync(replicaset.State{ReplicaSet: newRS(1), Now: t0}, replicaset.WithKubernetesVersion("1.32"))
	var ue *kversion.UnsupportedError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want an UnsupportedError", err)
	}
}

// TestMinorAvailableBoundary holds 1.33's availability boundary: its
// IsPodAvailable wants the ready time plus minReadySeconds strictly before
// now, 1.34+ at or before now. Expected values from the recordings
// (conformance/testdata/replicaset, random seed 2006: a pod ready exactly
// minReadySeconds ago counts as available at 1.34 and 1.37, not at 1.33).
func TestMinorAvailableBoundary(t *testing.T) {
	rs := newRS(2)
	rs.Spec.MinReadySeconds = 30
	pods := []*corev1.Pod{mkPod("a", ready(30*time.Second)), mkPod("b", ready(26*time.Minute))}
	tests := []struct {
		version   string
		available int32
		reason    string
	}{
		{"1.33", 1, "v1.33.5 recorded 1 of 2 ready available: a's ready time + 30 s is now, not before it"},
		{"1.34", 2, "v1.34.4 recorded 2: Compare(now) <= 0"},
		{"1.37", 2, "v1.37.2 recorded 2"},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			p, err := replicaset.Sync(replicaset.State{ReplicaSet: rs, Pods: pods, Now: t0}, replicaset.WithKubernetesVersion(tt.version))
			if err != nil {
				t.Fatal(err)
			}
			if p.Status == nil {
				t.Fatalf("no status write, want %d available (%s)", tt.available, tt.reason)
			}
			if got := p.Status.ReplicaSet.Status.AvailableReplicas; got != tt.available {
				t.Errorf("%d available, want %d (%s)", got, tt.available, tt.reason)
			}
			checkReasons(t, p)
		})
	}
}
