package gltfenc

import (
	"encoding/json"
	"errors"
	"reflect"

	"github.com/qmuntal/gltf"

	"github.com/modelfs/modelfs/translate/metajson"
)

// unencodable reports whether err is encoding/json refusing a value (NaN or an infinity) that
// safeExtras can turn into null.
func unencodable(err error) bool {
	var uv *json.UnsupportedValueError
	return errors.As(err, &uv)
}

// safeExtras replaces every extras value in doc with its JSON as metajson writes extras, where
// NaN and infinities are null: a decoder's raw structs may hold them (a corrupt file's layer
// alpha, say), and one such number must not cost the model its glTF. Only a document that
// failed to encode goes through here: it works by reflection.
func safeExtras(doc *gltf.Document) error {
	var visit func(v reflect.Value) error
	visit = func(v reflect.Value) error {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				return visit(v.Elem())
			}
		case reflect.Slice, reflect.Array:
			switch v.Type().Elem().Kind() {
			case reflect.Pointer, reflect.Struct, reflect.Slice, reflect.Array:
			default:
				return nil // numbers, bytes, strings: no extras inside
			}
			for i := range v.Len() {
				if err := visit(v.Index(i)); err != nil {
					return err
				}
			}
		case reflect.Struct:
			for i := range v.NumField() {
				f := v.Field(i)
				if !v.Type().Field(i).IsExported() {
					continue
				}
				if v.Type().Field(i).Name == "Extras" && f.Kind() == reflect.Interface {
					if f.IsNil() {
						continue
					}
					raw, err := metajson.ExtrasJSON(f.Interface())
					if err != nil {
						return err
					}
					f.Set(reflect.ValueOf(raw))
					continue
				}
				if err := visit(f); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return visit(reflect.ValueOf(doc))
}
