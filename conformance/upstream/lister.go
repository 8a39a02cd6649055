package upstream

import (
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/labels"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	appslisters "k8s.io/client-go/listers/apps/v1"
)

// An informer's indexer lists objects in map order, but upstream issues its
// adopt and release patches in list order. These wrappers make the
// ReplicaSet lister list in input order, so every run is deterministic and
// claims ReplicaSets in the order the caller gave them.
//
// They also decide what a Get by name sees. The only such read in a sync is
// upstream's answer to AlreadyExists on the new ReplicaSet's create, which
// comes after the sync's own adopt and release patches. With current set,
// Get returns the object as the store holds it then (a cache that has
// delivered the sync's own writes, as a running informer usually has by the
// time the create's answer arrives); without it, the object as the input
// gave it (a cache that has not, as never-started informers).

// orderedRSInformer is a ReplicaSet informer whose lister lists in input order.
type orderedRSInformer struct {
	appsinformers.ReplicaSetInformer
	rank    map[string]int // by namespace/name
	current func(namespace, name string) (*appsv1.ReplicaSet, error)
}

func (i orderedRSInformer) Lister() appslisters.ReplicaSetLister {
	return orderedRSLister{ReplicaSetLister: i.ReplicaSetInformer.Lister(), rank: i.rank, current: i.current}
}

type orderedRSLister struct {
	appslisters.ReplicaSetLister
	rank    map[string]int
	current func(namespace, name string) (*appsv1.ReplicaSet, error)
}

func (l orderedRSLister) List(selector labels.Selector) ([]*appsv1.ReplicaSet, error) {
	list, err := l.ReplicaSetLister.List(selector)
	sortByRank(list, l.rank)
	return list, err
}

func (l orderedRSLister) ReplicaSets(namespace string) appslisters.ReplicaSetNamespaceLister {
	return orderedRSNamespaceLister{ReplicaSetNamespaceLister: l.ReplicaSetLister.ReplicaSets(namespace), rank: l.rank,
		namespace: namespace, current: l.current}
}

type orderedRSNamespaceLister struct {
	appslisters.ReplicaSetNamespaceLister
	rank      map[string]int
	namespace string
	current   func(namespace, name string) (*appsv1.ReplicaSet, error)
}

func (l orderedRSNamespaceLister) Get(name string) (*appsv1.ReplicaSet, error) {
	if l.current != nil {
		return l.current(l.namespace, name)
	}
	return l.ReplicaSetNamespaceLister.Get(name)
}

func (l orderedRSNamespaceLister) List(selector labels.Selector) ([]*appsv1.ReplicaSet, error) {
	list, err := l.ReplicaSetNamespaceLister.List(selector)
	sortByRank(list, l.rank)
	return list, err
}

func sortByRank(list []*appsv1.ReplicaSet, rank map[string]int) {
	sort.Slice(list, func(i, j int) bool {
		return rank[list[i].Namespace+"/"+list[i].Name] < rank[list[j].Namespace+"/"+list[j].Name]
	})
}
