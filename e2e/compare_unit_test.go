package e2e

import "testing"

func TestOnlyProgressingMessageDiffers(t *testing.T) {
	w := func(progressing conditionView, replicas int32) world {
		return world{
			Deployment: deploymentView{Image: "web:2", Status: statusView{Replicas: replicas, Conditions: []conditionView{
				{Type: "Available", Status: "True", Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability."},
				progressing,
			}}},
			ReplicaSets: []rsView{{Name: "web-old"}, {Name: "web-new", Replicas: replicas}},
		}
	}
	done := func(rs string) conditionView {
		return conditionView{Type: "Progressing", Status: "True", Reason: "NewReplicaSetAvailable",
			Message: `ReplicaSet "` + rs + `" has successfully progressed.`}
	}
	for _, tc := range []struct {
		name string
		a, b world
		want bool
	}{
		{"the CI run of 2026-12-08 01:36: the lost write kept the previous ReplicaSet's name",
			w(done("web-old"), 1), w(done("web-new"), 1), true},
		{"equal worlds do not differ at all", w(done("web-new"), 1), w(done("web-new"), 1), false},
		{"a different reason is a decision, not the race",
			w(done("web-new"), 1), w(conditionView{Type: "Progressing", Status: "True", Reason: "ReplicaSetUpdated",
				Message: `ReplicaSet "web-new" is progressing.`}, 1), false},
		{"the message and a size differ", w(done("web-old"), 1), w(done("web-new"), 2), false},
		{"another condition's message is not excused",
			w(conditionView{Type: "Available", Message: "a"}, 1), w(conditionView{Type: "Available", Message: "b"}, 1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.a.Deployment.Status.Conditions[1]
			if got := onlyProgressingMessageDiffers(tc.a, tc.b); got != tc.want {
				t.Errorf("onlyProgressingMessageDiffers = %v, want %v", got, tc.want)
			}
			if tc.a.Deployment.Status.Conditions[1] != a {
				t.Errorf("the worlds' conditions were changed")
			}
		})
	}
}

func TestLostWriteExplains(t *testing.T) {
	w := func(msg string) world {
		return world{Deployment: deploymentView{Image: "web:2", Status: statusView{Replicas: 1, Conditions: []conditionView{
			{Type: "Progressing", Status: "True", Reason: "NewReplicaSetAvailable", Message: msg},
		}}}}
	}
	old, cur := w(`ReplicaSet "web-5d8f6965c7" has successfully progressed.`), w(`ReplicaSet "web-f59dddbfb" has successfully progressed.`)
	created := `Created new replica set "web-f59dddbfb"`
	for _, tc := range []struct {
		name         string
		a, b         world
		lostA, lostB []string
		want         bool
	}{
		{"a lost the write that named b's ReplicaSet", old, cur, []string{"", created}, nil, true},
		{"b lost it: the same race on the other side", cur, old, nil, []string{created}, true},
		{"a lost writes, none naming b's ReplicaSet", old, cur,
			[]string{"", `ReplicaSet "web-5d8f6965c7" has successfully progressed.`}, nil, false},
		{"the side that lost it is the one naming the new ReplicaSet", old, cur, nil, []string{created}, false},
		{"no write lost", old, cur, nil, nil, false},
		{"a size differs too", old, func() world { x := cur; x.Deployment.Status.Replicas = 2; return x }(), []string{created}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lostWriteExplains(tc.a, tc.b, tc.lostA, tc.lostB); got != tc.want {
				t.Errorf("lostWriteExplains = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestQuotedName(t *testing.T) {
	for msg, want := range map[string]string{
		`Created new replica set "web-f59dddbfb"`:       "web-f59dddbfb",
		`ReplicaSet "web-f59dddbfb" is progressing.`:    "web-f59dddbfb",
		`Deployment "web" has successfully progressed.`: "web",
		"Deployment has minimum availability.":          "",
		`an unclosed "quote`:                            "",
	} {
		if got := quotedName(msg); got != want {
			t.Errorf("quotedName(%q) = %q, want %q", msg, got, want)
		}
	}
}
