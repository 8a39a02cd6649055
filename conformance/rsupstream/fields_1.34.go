//go:build rs_v1_34 || rs_v1_35

package rsupstream

import (
	"reflect"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/controller/replicaset"
	testingclock "k8s.io/utils/clock/testing"
)

// swapMinorFields, for 1.34 and 1.35 (built with -tags rs_v1_34 or
// rs_v1_35 by hack/record-replicaset.sh): the owner-indexed pod indexer
// and the clock; these minors have no consistency store.
func swapMinorFields(rsc *replicaset.ReplicaSetController, pods orderedIndexer, now time.Time) {
	field(rsc, "podIndexer").Set(reflect.ValueOf(cache.Indexer(pods)))
	field(rsc, "clock").Set(reflect.ValueOf(testingclock.NewFakePassiveClock(now)))
}
