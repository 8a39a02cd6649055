// Package defaults gives a Deployment, a ReplicaSet or a pod template as a
// kube-apiserver of a given minor stores it on create: the object a client
// reads back after applying a manifest that was written without defaults.
//
// The apiserver's path, and so this package's, has five steps, in order:
//
//  0. Decoding: an apiserver decodes the object into its own minor's
//     types, so a field that minor's k8s.io/api does not have (one added
//     in 1.34 to 1.37, such as a container's restartPolicyRules before
//     1.34 or a volume's defaultUser before 1.37) is gone whatever its
//     gates; the list is derived from k8s.io/api v0.33.5 to v0.37.2.
//  1. Defaulting: the apps/v1 and core/v1 defaulters the scheme runs on a
//     decoded object (spec.replicas, the strategy's rolling-update fields,
//     revisionHistoryLimit, progressDeadlineSeconds; in the pod template
//     the restart and DNS policies, the scheduler name, the termination
//     grace period, an empty pod securityContext, and for every init,
//     regular and ephemeral container the pull policy, termination message
//     path and policy, port protocols, env fieldRef apiVersions, probe
//     timings and HTTP handler defaults, quantities rounded up to
//     milli-units; for every volume source its own defaults: file modes,
//     hostPath type, iscsi, rbd, azureDisk, scaleIO, token expiry, and an
//     emptyDir where no source is set).
//  2. Conversion to the internal type and back: the
//     deprecated.deployment.rollback.to annotation is parsed as an integer
//     and printed back ("+5" becomes "5", "" disappears).
//  3. The registry's create strategy: status cleared, metadata.generation
//     1, and the template's fields whose feature gate is off at that
//     minor's default gates dropped, as are the legacy init-container
//     annotations.
//  4. Reading back: the object passes through JSON, so quantities are in
//     their canonical form ("1000m" reads back as "1") and empty lists and
//     maps as absent, as a controller that reads the stored object sees
//     them; the pod-template-hash computed over the result is the one the
//     cluster computes.
//
// Fields an apiserver fills from its own state (uid, creationTimestamp,
// resourceVersion, managedFields, a generated name) are left as given.
// Input the apiserver would refuse gets the library's validation error (a
// [*deployutil.InputError], matched by [deployutil.ErrInvalidInput]), not a
// default. The argument is never modified.
//
// Each supported minor, 1.33 to 1.37, has its own default gates (read
// from that minor's k8s.io/kubernetes) and its own set of unknown fields;
// the defaulters that reach a template are the same in all five. Proven
// in the conformance module: against v1.37.2's own create path on every
// run, and against each minor's (v1.33.5, v1.34.4, v1.35.4, v1.36.3,
// v1.37.2) recorded create path on 20,000 random Deployments per minor
// on 3,000 that every minor's full validation accepts, and on the
// distinct Deployments (and templates) of that minor's recorded corpora.
//
// [DeploymentUpdate], [ReplicaSetUpdate] and [PodTemplateUpdate] give the
// object stored on an update instead: the status and, unless the spec
// (for a Deployment, or its annotations) changes, the generation of the
// stored object, and the fields of a disabled gate kept where the stored
// object uses them;
// proven against v1.37.2's update path on every run and against each
// minor's recorded update path on 1,000 updates.
package defaults
