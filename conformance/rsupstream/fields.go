//go:build !rs_v1_33 && !rs_v1_34 && !rs_v1_35

package rsupstream

import (
	"reflect"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/controller/replicaset"
	consistencyutil "k8s.io/kubernetes/pkg/controller/util/consistency"
	testingclock "k8s.io/utils/clock/testing"
)

// swapMinorFields swaps the fields whose names differ between minors; this
// file is for 1.36 and 1.37 (fields_1.3x.go, behind a build tag, for the
// older ones the recorder is built for): the owner-indexed pod indexer,
// the clock, and the consistency store (a no-op: nothing was written
// before this sync).
func swapMinorFields(rsc *replicaset.ReplicaSetController, pods orderedIndexer, now time.Time) {
	field(rsc, "podIndexer").Set(reflect.ValueOf(cache.Indexer(pods)))
	field(rsc, "clock").Set(reflect.ValueOf(testingclock.NewFakePassiveClock(now)))
	field(rsc, "consistencyStore").Set(reflect.ValueOf(consistencyutil.NewNoopConsistencyStore()))
}
