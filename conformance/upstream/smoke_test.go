package upstream_test

import (
	"testing"

	"github.com/deploysync/deploysync/conformance/upstream"
)

func TestSmoke(t *testing.T) {
	out, err := upstream.Run(upstream.Input{Deployment: baseDeployment(3), Now: now, TerminatingReplicas: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range out.Actions {
		t.Log(a)
	}
	t.Logf("events %+v err %v", out.Events, out.Err)
	for _, rs := range out.ReplicaSets {
		t.Logf("rs %s %+v", rs.Name, rs.ObjectMeta)
	}
	t.Logf("d %+v", out.Deployment.Status)
}
