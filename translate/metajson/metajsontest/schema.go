package metajson

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is the JSON Schema (draft 2020-12) of the documents Encode and EncodeError write.
//
//go:embed schema.json
var Schema []byte

// schemaURL is the $id of Schema.
const schemaURL = "https://github.com/modelfs/modelfs/translate/metajson/schema.json"

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema))
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

// Validate checks that doc is UTF-8 JSON that conforms to Schema.
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
