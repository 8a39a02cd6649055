// Package kubectl holds differential tests: deploysync's kubectl.RolloutStatus,
// kubectl.History, kubectl.HistoryText, kubectl.DescribeTemplate and
// kubectl.Undo beside k8s.io/kubectl v0.37.2's own Deployment status
// viewer, history viewer, describe printer and rollbacker, on the library's
// scenario states, on random states of the conformance generator and on
// random pod templates. kubectl's history viewer and rollbacker read
// through a client; they get a fake clientset seeded with the state.
//
// The package has no API: everything is in its tests.
package kubectl
