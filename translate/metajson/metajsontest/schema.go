// Package metajsontest checks documents against the metadata's JSON Schema, for tests: the
// schema library stays out of the binary.
package metajsontest

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/modelfs/modelfs/translate/metajson"
)

// schemaURL is the $id of Schema.
const schemaURL = "https://github.com/modelfs/modelfs/translate/metajson/schema.json"

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(metajson.Schema))
	if err != nil {
		return nil, fmt.Errorf("metajson: schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("metajson: schema: %w", err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("metajson: schema: %w", err)
	}
	return sch, nil
})

// Validate checks that doc is UTF-8 JSON that conforms to metajson.Schema.
func Validate(doc []byte) error {
	if !utf8.Valid(doc) {
		return errors.New("metajson: document is not valid UTF-8")
	}
	sch, err := compiled()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("metajson: document is not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("metajson: %w", err)
	}
	return nil
}
