package replicaset

// Option changes how [Sync] decides.
type Option func(*options)

type options struct {
	terminatingReplicas bool
}

func defaultOptions() options { return options{terminatingReplicas: true} }

// WithTerminatingReplicas sets the DeploymentReplicaSetTerminatingReplicas
// feature gate: whether the status reports terminatingReplicas (the
// claimed pods being deleted that have not finished). It is on by default,
// as in 1.37.
func WithTerminatingReplicas(enabled bool) Option {
	return func(o *options) { o.terminatingReplicas = enabled }
}
