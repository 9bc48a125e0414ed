package config

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// decoder fills the types of schema.go from a parsed TOML tree, reporting
// unknown keys and type mismatches. It replaces toml's own struct decoding,
// which stops at the first problem and does not say where a key is.
type decoder struct {
	src   *source
	probs *problems
	warns *warnings
}

// decode stores data into the settable rv and reports problems at path. It
// returns false, leaving rv unchanged, if data has the wrong type; a table
// with a bad key inside is still stored, without that key.
func (d *decoder) decode(path []string, data any, rv reflect.Value) bool {
	switch rv.Kind() {
	case reflect.Pointer:
		v := reflect.New(rv.Type().Elem())
		if !d.decode(path, data, v.Elem()) {
			return false
		}
		rv.Set(v)
		return true
	case reflect.Struct:
		m, ok := data.(map[string]any)
		if !ok {
			d.mismatch(path, rv.Type(), data)
			return false
		}
		fields := fieldsOf(rv.Type())
		for _, k := range slices.Sorted(maps.Keys(m)) {
			sub := append(slices.Clip(path), k)
			i := slices.IndexFunc(fields, func(f field) bool { return f.name == k })
			if j := slices.IndexFunc(fields, func(f field) bool { return f.name == "*" }); i < 0 && j >= 0 {
				// A field tagged "*" is a map of every other key (the
				// role tables of [agents]).
				d.decode(path, map[string]any{k: m[k]}, rv.FieldByIndex(fields[j].index))
				continue
			}
			if i < 0 {
				d.unknown(path, k, fields)
				continue
			}
			d.decode(sub, m[k], rv.FieldByIndex(fields[i].index))
		}
		return true
	case reflect.Map:
		m, ok := data.(map[string]any)
		if !ok {
			d.mismatch(path, rv.Type(), data)
			return false
		}
		if rv.IsNil() {
			rv.Set(reflect.MakeMapWithSize(rv.Type(), len(m)))
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			v := reflect.New(rv.Type().Elem()).Elem()
			if d.decode(append(slices.Clip(path), k), m[k], v) {
				rv.SetMapIndex(reflect.ValueOf(k), v)
			}
		}
		return true
	case reflect.Slice:
		return d.decodeSlice(path, data, rv)
	case reflect.Interface:
		rv.Set(reflect.ValueOf(data))
		return true
	default:
		if !setScalar(rv, data) {
			d.mismatch(path, rv.Type(), data)
			return false
		}
		return true
	}
}

// decodeSlice decodes an array (of scalars, or of tables given inline or
// as [[name]]) into the slice rv.
func (d *decoder) decodeSlice(path []string, data any, rv reflect.Value) bool {
	arr, ok := data.([]any)
	if tables, isTables := data.([]map[string]any); isTables {
		arr, ok = make([]any, len(tables)), true // [[name]]: an array of tables
		for i, t := range tables {
			arr[i] = t
		}
	}
	if !ok {
		d.mismatch(path, rv.Type(), data)
		return false
	}
	out := reflect.MakeSlice(rv.Type(), 0, len(arr))
	good := true
	for i, x := range arr {
		v := reflect.New(rv.Type().Elem()).Elem()
		if v.Kind() == reflect.Struct {
			// An array of tables: each element is decoded as a table
			// at path.N (1-based), its unknown keys reported there.
			if !d.decode(append(slices.Clip(path), strconv.Itoa(i+1)), x, v) {
				good = false
				continue
			}
			out = reflect.Append(out, v)
			continue
		}
		if !setScalar(v, x) {
			d.probs.add(d.src, path, "element %d: expected %s, got %s", i+1, want(v.Type()), typeName(x))
			good = false
			continue
		}
		out = reflect.Append(out, v)
	}
	if good {
		rv.Set(out)
	}
	return good
}

// unknown reports the key k at path that no field of fields reads: a
// warning for a Codex key agent ignores and for a key of [otel], else an
// error.
func (d *decoder) unknown(path []string, k string, fields []field) {
	sub := append(slices.Clip(path), k)
	switch {
	case len(sub) == 2 && sub[0] == "tui":
		d.warns.add(d.src, sub[:1], ignoredMsg) // the rest of Codex's [tui], one warning
	case codexIgnored(sub):
		d.warns.add(d.src, sub, ignoredMsg)
	case len(sub) == 2 && sub[0] == "notice":
		d.warns.add(d.src, sub, "not one of Codex's [notice] keys; ignored (a key written below [notice] belongs to it: move it above)"+codexHint(path, k, fields))
	case otelUnknown(sub):
		d.warns.add(d.src, sub, "unknown [otel] key; ignored"+codexHint(path, k, fields))
	default:
		d.probs.add(d.src, sub, "unknown key%s", codexHint(path, k, fields))
	}
}

// mismatch reports that the value at path is not of type t.
func (d *decoder) mismatch(path []string, t reflect.Type, data any) {
	d.probs.add(d.src, path, "expected %s, got %s", want(t), typeName(data))
}

// setScalar stores a string, integer, float or boolean into rv and reports
// whether data had a fitting type. Integers are accepted as floats.
func setScalar(rv reflect.Value, data any) bool {
	switch rv.Kind() {
	case reflect.String:
		s, ok := data.(string)
		if ok {
			rv.SetString(s)
		}
		return ok
	case reflect.Int64:
		n, ok := data.(int64)
		if ok {
			rv.SetInt(n)
		}
		return ok
	case reflect.Float64:
		switch n := data.(type) {
		case float64:
			rv.SetFloat(n)
		case int64:
			rv.SetFloat(float64(n))
		default:
			return false
		}
		return true
	case reflect.Bool:
		b, ok := data.(bool)
		if ok {
			rv.SetBool(b)
		}
		return ok
	}
	return false
}

// want describes a value of Go type t the way a TOML user would.
func want(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return want(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Int64:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(want(t.Elem()), "a "), "an ") + "s"
	}
	return "a table"
}

// typeName names the TOML type of a decoded value.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case time.Time:
		return "datetime"
	case []map[string]any:
		return "array of tables"
	case []any:
		return "array"
	case map[string]any:
		return "table"
	}
	return fmt.Sprintf("%T", v)
}

// field is one key of a schema struct.
type field struct {
	name  string
	index []int
}

// fieldsOf lists the keys of struct type t in declaration order, with the
// fields of embedded structs inlined.
func fieldsOf(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			for _, sub := range fieldsOf(f.Type) {
				out = append(out, field{sub.name, append([]int{i}, sub.index...)})
			}
			continue
		}
		if name := f.Tag.Get("toml"); name != "" {
			out = append(out, field{name, []int{i}})
		}
	}
	return out
}

// hintNames suggests what an unknown key k was meant to be: the nearest
// of names if it is close, or every name when there are few.
func hintNames(k string, names []string) string {
	best, dist := "", 3
	for _, name := range names {
		if n := editDistance(k, name); n < dist && n < len(k) {
			best, dist = name, n
		}
	}
	if best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	if len(names) <= 7 {
		return " (expected one of: " + strings.Join(names, ", ") + ")"
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// knownKeys lists every key the loader accepts as a dotted pattern in which
// "*" stands for a name the user chooses (a provider id, a profile name).
// Tables whose content is free ([tui], query_params) are listed as one
// key.
func knownKeys() []string {
	return keyPatterns(reflect.TypeFor[fileConfig](), "")
}

// keyPatterns lists the key patterns of type t below prefix.
func keyPatterns(t reflect.Type, prefix string) []string {
	switch t.Kind() {
	case reflect.Pointer:
		return keyPatterns(t.Elem(), prefix)
	case reflect.Struct:
		var out []string
		for _, f := range fieldsOf(t) {
			name := f.name
			if name == "*" { // the map of the other keys, at prefix itself
				out = append(out, keyPatterns(t.FieldByIndex(f.index).Type, prefix)...)
				continue
			}
			if prefix != "" {
				name = prefix + "." + name
			}
			out = append(out, keyPatterns(t.FieldByIndex(f.index).Type, name)...)
		}
		return out
	case reflect.Map:
		if t.Elem().Kind() == reflect.Struct {
			return keyPatterns(t.Elem(), prefix+".*")
		}
	}
	return []string{prefix}
}
