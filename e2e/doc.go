// Package e2e runs deploysync's example controllers on a real kube-apiserver
// and etcd, started inside the test, beside kube-controller-manager's
// ReplicaSet controller, and compares every rollout scenario with
// kube-controller-manager's own Deployment controller doing the same.
//
// The tests are the package's content; run them with go test.
package e2e
