package upstream

import (
	"context"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/controller/deployment"
	_ "k8s.io/kubernetes/pkg/controller/deployment/util" // for the linkname below
	"k8s.io/kubernetes/pkg/features"
)

// syncDeployment is upstream's unexported (*DeploymentController).syncDeployment.
//
//go:linkname syncDeployment k8s.io/kubernetes/pkg/controller/deployment.(*DeploymentController).syncDeployment
func syncDeployment(dc *deployment.DeploymentController, ctx context.Context, key string) error

// deploymentNowFn is the clock of the deployment package (requeue delays).
//
//go:linkname deploymentNowFn k8s.io/kubernetes/pkg/controller/deployment.nowFn
var deploymentNowFn func() time.Time

// utilNowFn is the clock of the deployment/util package (deadline checks).
//
//go:linkname utilNowFn k8s.io/kubernetes/pkg/controller/deployment/util.nowFn
var utilNowFn func() time.Time

// pinClocks makes every clock upstream reads return now, and returns a
// function that gives them back the wall clock.
func pinClocks(now time.Time) (restore func()) {
	fixed := func() time.Time { return now }
	metav1.NowHook = fixed
	deploymentNowFn = fixed
	utilNowFn = fixed
	return func() {
		metav1.NowHook = nil
		deploymentNowFn = time.Now
		utilNowFn = time.Now
	}
}

// terminatingGate caches the last value given to the feature gate, so that a
// run only pays for setting it when it changes.
var terminatingGate *bool

// setTerminatingReplicasGate sets the DeploymentReplicaSetTerminatingReplicas
// feature gate.
func setTerminatingReplicasGate(on bool) error {
	if terminatingGate != nil && *terminatingGate == on {
		return nil
	}
	if utilfeature.DefaultFeatureGate.Enabled(features.DeploymentReplicaSetTerminatingReplicas) != on {
		err := utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{
			string(features.DeploymentReplicaSetTerminatingReplicas): on,
		})
		if err != nil {
			return fmt.Errorf("setting feature gate %s=%t: %w", features.DeploymentReplicaSetTerminatingReplicas, on, err)
		}
	}
	terminatingGate = &on
	return nil
}

// ctrlField returns a settable view of the unexported field name of dc.
func ctrlField(dc *deployment.DeploymentController, name string) (reflect.Value, error) {
	f := reflect.ValueOf(dc).Elem().FieldByName(name)
	if !f.IsValid() {
		return reflect.Value{}, fmt.Errorf("DeploymentController has no field %q", name)
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), nil
}

// replaceField stores v in the unexported field name of dc and returns the
// previous value.
func replaceField(dc *deployment.DeploymentController, name string, v any) (any, error) {
	f, err := ctrlField(dc, name)
	if err != nil {
		return nil, err
	}
	nv := reflect.ValueOf(v)
	if !nv.Type().AssignableTo(f.Type()) {
		return nil, fmt.Errorf("DeploymentController.%s has type %s; %T does not fit", name, f.Type(), v)
	}
	old := f.Interface()
	f.Set(nv)
	return old, nil
}
