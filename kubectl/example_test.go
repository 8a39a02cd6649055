package kubectl_test

import (
	"errors"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/kubectl"
)

// The table `kubectl rollout history deployment/web` prints.
func ExampleHistoryText() {
	d := webDeployment("nginx:3")
	rss := []*appsv1.ReplicaSet{
		owned("web-a", "nginx:1", "1", "initial", 0),
		owned("web-b", "nginx:2", "2", "", 1),
		owned("web-c", "nginx:3", "3", "kubectl set image deployment/web web=nginx:3", 2),
	}
	text, _ := kubectl.HistoryText(d, rss, 0)
	header, table, _ := strings.Cut(text, "\n")
	fmt.Printf("%q\n", header) // kubectl's header ends with a space
	fmt.Print(table)
	// Output:
	// "deployment.apps/web "
	// REVISION  CHANGE-CAUSE
	// 1         initial
	// 2         <none>
	// 3         kubectl set image deployment/web web=nginx:3
}

// `kubectl rollout undo deployment/web` as an action, then the answers when
// it does not patch.
func ExampleUndo() {
	d := webDeployment("nginx:3")
	rss := []*appsv1.ReplicaSet{owned("web-a", "nginx:1", "1", "", 0), owned("web-b", "nginx:2", "2", "", 1), owned("web-c", "nginx:3", "3", "", 2)}
	patch, _ := kubectl.Undo(d, rss, 0)
	after, _ := patch.ApplyTo(d)
	fmt.Println("image after the patch:", after.Spec.Template.Spec.Containers[0].Image)

	_, err := kubectl.Undo(d, rss, 3)
	fmt.Println(err, errors.Is(err, kubectl.ErrUndoUnchanged))
	_, err = kubectl.Undo(d, rss, 7)
	fmt.Println(err, errors.Is(err, kubectl.ErrUndoRevisionNotFound))
	// Output:
	// image after the patch: nginx:2
	// skipped rollback (current template already matches revision 3) true
	// unable to find specified revision 7 in history true
}
