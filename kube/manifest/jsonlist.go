package manifest

import (
	"bytes"
	"encoding/json"

	"go.yaml.in/yaml/v3"
)

// spliceJSONList writes a changed `kind: List` document as it was read,
// but for the items that changed, each encoded where it stood (indented
// from its own line), so untouched items keep their bytes. It reports
// false, having written nothing, when the body's items cannot be matched
// to the node's one for one.
func (s style) spliceJSONList(out *bytes.Buffer, d *Document) (bool, error) {
	root := d.Node.Content[0]
	items := field(root, "items")
	if field(root, "kind") == nil || field(root, "kind").Value != "List" || items == nil || items.Kind != yaml.SequenceNode {
		return false, nil
	}
	spans, ok := jsonListItemSpans(d.body)
	if !ok || len(spans) != len(items.Content) {
		return false, nil
	}
	var spliced bytes.Buffer
	var at int64
	for i, span := range spans {
		var now, was bytes.Buffer
		if err := writeJSON(&now, items.Content[i]); err != nil {
			return false, err
		}
		if json.Compact(&was, d.body[span[0]:span[1]]) == nil && bytes.Equal(now.Bytes(), was.Bytes()) {
			continue
		}
		spliced.Write(d.body[at:span[0]])
		if s.jsonIndent == "" {
			spliced.Write(now.Bytes())
		} else if err := json.Indent(&spliced, now.Bytes(), lineIndent(d.body, span[0]), s.jsonIndent); err != nil {
			return false, err
		}
		at = span[1]
	}
	spliced.Write(d.body[at:])
	out.Write(spliced.Bytes())
	return true, nil
}

// jsonListItemSpans finds the byte span of each element of the top-level
// "items" array of a JSON object.
func jsonListItemSpans(body []byte) ([][2]int64, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, false
		}
		if key != "items" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil, false
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil, false
		}
		var spans [][2]int64
		for dec.More() {
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				return nil, false
			}
			end := dec.InputOffset()
			spans = append(spans, [2]int64{end - int64(len(raw)), end})
		}
		return spans, true
	}
	return nil, false
}

// lineIndent is the white space that starts the line holding offset.
func lineIndent(body []byte, offset int64) string {
	start := bytes.LastIndexByte(body[:offset], '\n') + 1
	line := body[start:offset]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}
