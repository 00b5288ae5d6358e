package inject

import "github.com/tandem-sh/tandem/internal/yamlnode"

// The injector's short names for the node helpers it shares with the test
// kit (integration/kit).
var (
	lookup     = yamlnode.Lookup
	keyOf      = yamlnode.KeyOf
	path       = yamlnode.Path
	scalarAt   = yamlnode.ScalarAt
	set        = yamlnode.Set
	mappingAt  = yamlnode.MappingAt
	sequenceAt = yamlnode.SequenceAt
	str        = yamlnode.Str
	quoted     = yamlnode.Quoted
	mapping    = yamlnode.Mapping
	stringSeq  = yamlnode.StringSeq
	stringsOf  = yamlnode.StringsOf
)
