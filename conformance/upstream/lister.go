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

// orderedRSInformer is a ReplicaSet informer whose lister lists in input order.
type orderedRSInformer struct {
	appsinformers.ReplicaSetInformer
	rank map[string]int // by namespace/name
}

func (i orderedRSInformer) Lister() appslisters.ReplicaSetLister {
	return orderedRSLister{ReplicaSetLister: i.ReplicaSetInformer.Lister(), rank: i.rank}
}

type orderedRSLister struct {
	appslisters.ReplicaSetLister
	rank map[string]int
}

func (l orderedRSLister) List(selector labels.Selector) ([]*appsv1.ReplicaSet, error) {
	list, err := l.ReplicaSetLister.List(selector)
	sortByRank(list, l.rank)
	return list, err
}

func (l orderedRSLister) ReplicaSets(namespace string) appslisters.ReplicaSetNamespaceLister {
	return orderedRSNamespaceLister{ReplicaSetNamespaceLister: l.ReplicaSetLister.ReplicaSets(namespace), rank: l.rank}
}

type orderedRSNamespaceLister struct {
	appslisters.ReplicaSetNamespaceLister
	rank map[string]int
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
