package gen

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deploysync/deploysync"
)

// TestValidIsValid checks the generator's promise: Sync accepts every
// state Valid makes, over many seeds.
func TestValidIsValid(t *testing.T) {
	for seed := uint64(0); seed < 5000; seed++ {
		c := Valid(NewRand(seed))
		if _, err := deploysync.Sync(c.State, c.Options()...); err != nil {
			t.Fatalf("seed %d: Sync refused a generated state: %v", seed, err)
		}
	}
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
			t.Fatal(err)
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
