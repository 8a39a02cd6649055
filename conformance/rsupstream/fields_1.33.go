//go:build rs_v1_33

package rsupstream

import (
	"reflect"
	"time"

	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/kubernetes/pkg/controller/replicaset"
)

// swapMinorFields, for 1.33 (built with -tags rs_v1_33 by
// hack/record-replicaset.sh): 1.33 has no pod indexer and no clock field;
// it lists the namespace's pods through its pod lister, which is rebuilt
// on the ordered indexer (a lister reads the namespace index), and reads
// the time only through metav1.Now, which the patched apimachinery pins.
func swapMinorFields(rsc *replicaset.ReplicaSetController, pods orderedIndexer, _ time.Time) {
	field(rsc, "podLister").Set(reflect.ValueOf(corelisters.NewPodLister(pods)))
}
