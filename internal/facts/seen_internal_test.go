package facts

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// TestSeenSet draws lists of names and UIDs from small alphabets, so that
// duplicates are common, in sizes on both sides of smallSeen, and checks
// seenSet's answer for each entry against a scan of the earlier ones.
func TestSeenSet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	dups := 0
	for range 2000 {
		n := 1 + r.IntN(2*smallSeen)
		alphabet := 1 + r.IntN(3*n)
		names, uids := make([]string, n), make([]types.UID, n)
		for i := range n {
			names[i] = "rs-" + strconv.Itoa(r.IntN(alphabet))
			uids[i] = types.UID("uid-" + strconv.Itoa(r.IntN(alphabet)))
		}
		var s seenSet
		s.init(n)
		for i := range n {
			wantName, wantUID := false, false
			for j := range i {
				wantName = wantName || names[j] == names[i]
				wantUID = wantUID || uids[j] == uids[i]
			}
			gotName, gotUID := s.add(names[i], uids[i])
			if gotName != wantName || gotUID != wantUID {
				t.Fatalf("n=%d entry %d (%s, %s): seenSet says %v/%v, a scan %v/%v", n, i, names[i], uids[i], gotName, gotUID, wantName, wantUID)
			}
			if wantName {
				dups++
			}
		}
	}
	if dups == 0 {
		t.Fatal("no duplicate was drawn")
	}
}
