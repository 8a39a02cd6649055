package minors

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/deployutil"
)

// This file is not copied into record-minors.sh's scratch modules (only
// minors.go is): it serves the recorder and the tests.

// KubectlRevisions are the revisions kubectl is asked about on a state: 0
// (the table; undo to the previous revision), a negative one, every
// revision the ReplicaSets and the Deployment carry, their neighbours (a
// missing revision among them), and one nobody has.
func KubectlRevisions(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []int64 {
	seen := map[int64]bool{}
	var out []int64
	add := func(v int64) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	add(0)
	add(-1)
	for _, rs := range rss {
		if v, err := deployutil.Revision(rs); err == nil {
			add(v)
			add(v + 1)
		}
	}
	if v, err := deployutil.Revision(d); err == nil {
		add(v)
	}
	add(99)
	return out
}
