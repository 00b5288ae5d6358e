package check

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// Through the real typed clients, check only ever lists and gets, each
// allowed by the ClusterRole of examples/webhook/check-rbac.yaml, and
// every rule of it is needed. Lists come in pages. What it finds is what
// the fake cluster gives.
func TestReadOnlyThroughTheAPI(t *testing.T) {
	f := newFixture(t)
	f.cluster.pods = append(f.cluster.pods, jobPod("held", ctr{name: "export", ago: time.Hour}, ctr{name: "proxy", running: true}))
	for i := range 2 * listPage {
		f.cluster.pods = append(f.cluster.pods, jobPod(fmt.Sprintf("done-%d", i), ctr{name: "export", ago: time.Hour}))
	}
	api := &apiServer{t: t, cluster: f.cluster}
	viaAPI, err := checker{cluster: NewAPICluster(api.clients()), prober: f.prober, now: testNow}.run(context.Background(), Options{StuckAfter: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	direct := f.run(t, Options{})
	if !reflect.DeepEqual(viaAPI, direct) || viaAPI.Errors() != 1 || viaAPI.Pods != len(f.cluster.pods) {
		t.Errorf("through the API: %+v\ndirect: %+v", viaAPI, direct)
	}

	role := checkRole(t)
	used := map[int]bool{}
	pages := 0
	for _, r := range api.requests {
		if r.method != "GET" || (r.verb != "list" && r.verb != "get") {
			t.Errorf("%s (%s) %s/%s: check sends only GET, to list and get", r.method, r.verb, r.group, r.resource)
		}
		i := slices.IndexFunc(role.Rules, func(rule rbacv1.PolicyRule) bool {
			return slices.Contains(rule.APIGroups, r.group) && slices.Contains(rule.Resources, r.resource) && slices.Contains(rule.Verbs, r.verb)
		})
		if i < 0 {
			t.Errorf("%s %q/%s is not in the ClusterRole tandem-check", r.verb, r.group, r.resource)
		}
		used[i] = true
		if r.resource == "pods" {
			pages++
		}
	}
	for i, rule := range role.Rules {
		if !used[i] {
			t.Errorf("rule %d of the ClusterRole (%v %v) was not needed", i, rule.Verbs, rule.Resources)
		}
	}
	// Three pages of every pod, and one of the webhook's own.
	if pages != 4 {
		t.Errorf("%d pod lists, want 4 (3 pages of %d pods, 1 of the webhook's)", pages, len(f.cluster.pods))
	}
}

// checkRole reads the ClusterRole that check's users are bound to.
func checkRole(t *testing.T) rbacv1.ClusterRole {
	t.Helper()
	data, err := os.ReadFile("../../examples/webhook/check-rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	if err := dec.Decode(&role); err != nil {
		t.Fatal(err)
	}
	if err := dec.Decode(&struct{}{}); err != io.EOF {
		t.Fatalf("check-rbac.yaml holds more than the ClusterRole: %v", err)
	}
	if role.Kind != "ClusterRole" || role.Name != "tandem-check" {
		t.Fatalf("check-rbac.yaml holds %s %s, want ClusterRole tandem-check", role.Kind, role.Name)
	}
	return role
}

// A right missing is an error that names the ClusterRole to bind.
func TestForbiddenNamesTheRole(t *testing.T) {
	api := &apiServer{t: t, cluster: newFixture(t).cluster, forbidden: "mutatingwebhookconfigurations"}
	_, err := Run(context.Background(), api.clients(), Options{StuckAfter: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "list mutatingwebhookconfigurations: ") ||
		!strings.HasSuffix(err.Error(), "check reads with the ClusterRole tandem-check of examples/webhook/check-rbac.yaml") {
		t.Errorf("got %v", err)
	}
}
