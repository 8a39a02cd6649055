package randstate

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"

	// The module's -update flag: go test ./... -update passes it to every
	// test binary, and this package has no golden to rewrite.
	_ "github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestValidMostlyAccepted checks the generator's promise as far as the
// library can judge it: Sync answers every state Valid makes, refusing only
// with an input error, and accepts most of them. (Which refusals are right
// is for upstream's validation to say: the conformance suite asks it.)
func TestValidMostlyAccepted(t *testing.T) {
	const n = 5000
	refused := 0
	for seed := uint64(0); seed < n; seed++ {
		c := Valid(NewRand(seed))
		if _, err := deploysync.Sync(c.State, c.Options()...); err != nil {
			if !errors.Is(err, deployutil.ErrInvalidInput) {
				t.Fatalf("seed %d: Sync failed with an error that is not an input error: %v", seed, err)
			}
			refused++
		}
	}
	if refused > n/100 {
		t.Errorf("Sync refused %d of %d generated states", refused, n)
	}
	t.Logf("Sync refused %d of %d generated states", refused, n)
}

// TestWide checks that the generator reaches the corners of the space an
// apiserver holds that a library's own notion of valid input might miss.
func TestWide(t *testing.T) {
	const n = 5000
	seen := map[string]int{}
	for seed := uint64(0); seed < n; seed++ {
		c := Valid(NewRand(seed))
		d := c.State.Deployment
		if cc := d.Status.CollisionCount; cc != nil && *cc >= math.MaxInt32-1 {
			seen["collisionCount at its limit"]++
		}
		newName := deployutil.ReplicaSetName(d.Name, deployutil.ComputeHash(&d.Spec.Template, d.Status.CollisionCount))
		var sum int64
		for _, rs := range c.State.ReplicaSets {
			sum += int64(*rs.Spec.Replicas)
			if rs.Name == newName {
				seen["a ReplicaSet has the new ReplicaSet's name"]++
			}
			for _, v := range rs.Annotations {
				if v == "4294967296" || v == "9223372036854775808" || v == "+5" || v == "0x10" {
					seen["integer annotation beyond the limits or oddly written"]++
				}
			}
		}
		if sum > math.MaxInt32 {
			seen["sizes whose sum overflows int32"]++
		}
		uids := map[types.UID]bool{}
		for _, rs := range c.State.ReplicaSets {
			uids[rs.UID] = true
		}
		for uid, pods := range c.State.Pods {
			if !uids[uid] {
				seen["pods filed under an unknown UID"]++
			}
			for _, p := range pods {
				if ref := metav1.GetControllerOf(p); ref == nil {
					seen["a pod without a controller"]++
				} else if ref.UID != uid {
					seen["a pod filed under another ReplicaSet"]++
				}
			}
		}
	}
	for _, what := range []string{"collisionCount at its limit", "a ReplicaSet has the new ReplicaSet's name",
		"integer annotation beyond the limits or oddly written", "sizes whose sum overflows int32",
		"pods filed under an unknown UID", "a pod without a controller", "a pod filed under another ReplicaSet"} {
		if seen[what] < n/500 {
			t.Errorf("%s: in %d of %d states", what, seen[what], n)
		}
	}
	t.Logf("corners reached: %v", seen)
}

// TestBytesDeterministic checks that the same bytes give the same state.
func TestBytesDeterministic(t *testing.T) {
	in := []byte("some fuzzer input that drives many choices")
	a, b := Valid(NewBytes(in)), Valid(NewBytes(in))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("same bytes gave different states:\n%s", diff)
	}
}

// TestBranchMix checks that generated states reach every branch of Sync
// often enough to be worth generating.
func TestBranchMix(t *testing.T) {
	counts := map[deploysync.Branch]int{}
	errs := 0
	const n = 4000
	for seed := uint64(0); seed < n; seed++ {
		c := Valid(NewRand(seed))
		p, err := deploysync.Sync(c.State, c.Options()...)
		if err != nil {
			continue // refused input; TestValidMostlyAccepted bounds how often
		}
		counts[p.Branch]++
		if p.Err != nil {
			errs++
		}
	}
	for _, b := range []deploysync.Branch{deploysync.SelectingAll, deploysync.Deleting, deploysync.Paused, deploysync.Rollback,
		deploysync.ScalingEvent, deploysync.Recreate, deploysync.RollingUpdate} {
		if counts[b] < n/200 {
			t.Errorf("branch %s reached by %d of %d states", b, counts[b], n)
		}
	}
	if errs < n/400 {
		t.Errorf("hash collisions in %d of %d states", errs, n)
	}
	t.Logf("branches: %v; hash collisions: %d", counts, errs)
}
