// Package applier carries out a deploysync plan against a Kubernetes API
// server with client-go: each action of the plan becomes one client call, in
// order, and the first failure stops the plan.
//
// The concepts:
//
//   - A plan is the intent of one sync of the Deployment controller
//     ([deploysync.Plan]); [Applier.Apply] turns its actions into creates,
//     updates, deletes, strategic-merge patches, status updates and events.
//   - A plan may write one object twice (an adoption patch, then a scale of
//     the same ReplicaSet; a status update, then a rollback of the same
//     Deployment). The resourceVersion each write returns is carried into
//     the next write of the same object, so the second write does not fail
//     with a conflict that the first one caused.
//   - What only the server can answer is answered here: the adoption
//     precondition (a fresh read of the Deployment), and a create that finds
//     the name taken ([deploysync.ResolveAlreadyExists]).
//   - Every failure is returned, wrapped in an [*ActionError] that names the
//     action; the caller requeues with rate limiting. Conflicts (409) are
//     such failures: the next sync reads newer objects.
package applier
