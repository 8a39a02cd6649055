// Package applier implements [execute.Client], the API calls
// [execute.Plan] performs a plan with, for client-go ([Applier], a
// clientset and an event recorder) and for controller-runtime ([Runtime], a
// manager's client, its API reader and an event recorder). Each method is
// one client call; the rules of performing a plan (resourceVersions carried
// from one write of an object to the next, the adoption precondition,
// AlreadyExists answers, stopping at the first failure) are execute.Plan's.
//
// [WithCache] gives either the controller's cache to answer AlreadyExists
// from, as upstream answers it from its lister.
package applier
