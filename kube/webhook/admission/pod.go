package admission

import (
	"encoding/json"
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"
	"gomodules.xyz/jsonpatch/v2"
)

// podDoc is one Pod under admission: as it came, and as a node tree that
// the inject package rewrites in place.
type podDoc struct {
	raw         []byte
	node        *yaml.Node
	addedType   int // key-value pairs appended for inject (kind, apiVersion), taken off for the patch
	containers  []podContainer
	credentials PodCredentials
}

type podContainer struct{ Name, Image string }

// podFields are the few fields read as Go values.
type podFields struct {
	Spec struct {
		ServiceAccountName string `json:"serviceAccountName"`
		ImagePullSecrets   []struct {
			Name string `json:"name"`
		} `json:"imagePullSecrets"`
		Containers []podContainer `json:"containers"`
	} `json:"spec"`
}

// parsePod reads a review's object. JSON is YAML, so the Pod becomes the
// same node tree that `tandemctl inject` rewrites.
func parsePod(raw []byte, namespace string) (*podDoc, error) {
	if len(raw) == 0 {
		return nil, errors.New("the review carries no object")
	}
	var fields podFields
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("decode the pod: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("read the pod as a manifest: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("the review's object is not a JSON object")
	}
	p := &podDoc{raw: raw, node: doc.Content[0], containers: fields.Spec.Containers}
	// inject finds the pod template by apiVersion and kind; the API server
	// always sends them, but a review without them must not be a different
	// pod.
	for _, field := range [][2]string{{"kind", "Pod"}, {"apiVersion", "v1"}} {
		if !hasKey(p.node, field[0]) {
			p.node.Content = append(p.node.Content,
				&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: field[0]},
				&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: field[1]})
			p.addedType++
		}
	}
	p.credentials = PodCredentials{Namespace: namespace, ServiceAccount: fields.Spec.ServiceAccountName}
	for _, s := range fields.Spec.ImagePullSecrets {
		p.credentials.PullSecrets = append(p.credentials.PullSecrets, s.Name)
	}
	return p, nil
}

func hasKey(m *yaml.Node, key string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return true
		}
	}
	return false
}

// imageSidecars names the containers whose image matches a pattern.
func (p *podDoc) imageSidecars(patterns []imageGlob) []string {
	var names []string
	for _, c := range p.containers {
		for _, pattern := range patterns {
			if pattern.match(c.Image) {
				names = append(names, c.Name)
				break
			}
		}
	}
	return names
}

// patch is the JSON patch from the pod as it came to the node tree as it
// is now (controller-runtime's PatchResponseFromRaw, with the same
// library).
func (p *podDoc) patch() ([]byte, error) {
	p.node.Content = p.node.Content[:len(p.node.Content)-2*p.addedType]
	var value any
	if err := p.node.Decode(&value); err != nil {
		return nil, fmt.Errorf("read back the injected pod: %w", err)
	}
	injected, err := json.Marshal(value)
	if err != nil {
		return nil, fmt.Errorf("encode the injected pod: %w", err)
	}
	ops, err := jsonpatch.CreatePatch(p.raw, injected)
	if err != nil {
		return nil, fmt.Errorf("diff the injected pod: %w", err)
	}
	keepOrder(ops, p.node)
	return json.Marshal(ops)
}
