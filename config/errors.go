package config

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Error is one problem with the configuration: a syntax error, an unknown
// key, a value of the wrong type or an invalid value. [Load] returns one
// *Error, or several joined with [errors.Join]; use [errors.As] to inspect
// them. Its message is one line:
//
//	/home/u/.agent/config.toml:7: model_providers.x.bse_url: unknown key (did you mean "base_url"?)
//	-c request_max_retries=x: request_max_retries: expected an integer, got string
type Error struct {
	// Path is the config file the problem is in. It is empty for problems
	// in a -c override.
	Path string
	// Line is the 1-based line in Path, or 0 when unknown (and always for
	// overrides).
	Line int
	// Override is the -c argument the problem came from, as given.
	Override string
	// Key is the dotted key, quoted as in TOML where needed
	// (projects."/src/app".trust_level). It may be empty for syntax errors.
	Key string
	// Msg says what is wrong, in lower case.
	Msg string
}

// Error formats e as "path:line: key: msg" or "-c override: key: msg".
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.Override != "":
		b.WriteString("-c " + e.Override)
	case e.Path != "":
		b.WriteString(e.Path)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
	default:
		b.WriteString("config")
	}
	if e.Key != "" {
		b.WriteString(": " + e.Key)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// source is where one layer of configuration came from: the file, or one -c
// argument. It turns a key path into an [*Error] with a line number.
type source struct {
	path     string
	override string
	data     string     // file text, for locating keys
	keys     []toml.Key // every key of the file, in order
	lines    map[string]int
}

// errorAt returns an *Error for the key at path in s.
func (s *source) errorAt(path []string, msg string) *Error {
	e := &Error{Key: toml.Key(path).String(), Msg: msg}
	if s.override != "" {
		e.Override = s.override
		return e
	}
	e.Path = s.path
	e.Line = s.line(path)
	return e
}

// line returns the line defining the key at path, or 0. BurntSushi/toml
// records each key's position but does not export it, so line asks the
// parser: see [probeLine]. A table that exists only implicitly (the
// "model_providers" of [model_providers.x]) has no position of its own; it
// is reported at its first descendant.
func (s *source) line(path []string) int {
	if s.data == "" || len(path) == 0 {
		return 0
	}
	k := toml.Key(path).String()
	if n, ok := s.lines[k]; ok {
		return n
	}
	n := probeLine(s.data, path)
	if n == 0 {
		for _, key := range s.keys {
			if len(key) > len(path) && slices.Equal(key[:len(path)], path) {
				if n = probeLine(s.data, key); n != 0 {
					break
				}
			}
		}
	}
	if s.lines == nil {
		s.lines = make(map[string]int)
	}
	s.lines[k] = n
	return n
}

// probeMessage is the error a [probe] returns; the parser copies it into
// [toml.ParseError.Message].
const probeMessage = "config: locating key"

// probe fails as soon as the decoder reaches it.
type probe struct{}

// UnmarshalTOML always fails, so that the decoder reports where it was.
func (probe) UnmarshalTOML(any) error { return errors.New(probeMessage) }

// probeLine returns the line of the key at path in the TOML text data, or
// 0. It decodes data into a struct built to hold only that key, whose value
// is a [probe]; the decoder then fails with a ParseError positioned at the
// key. Keys that cannot be expressed as a struct tag get 0.
func probeLine(data string, path []string) int {
	t := reflect.TypeFor[probe]()
	for i := len(path) - 1; i >= 0; i-- {
		seg := path[i]
		if seg == "" || seg == "-" || strings.Contains(seg, ",") {
			return 0
		}
		t = reflect.StructOf([]reflect.StructField{{
			Name: "F",
			Type: t,
			Tag:  reflect.StructTag("toml:" + strconv.Quote(seg)),
		}})
	}
	_, err := toml.Decode(data, reflect.New(t).Interface())
	var pe toml.ParseError
	if !errors.As(err, &pe) || pe.Message != probeMessage || pe.LastKey != toml.Key(path).String() {
		return 0
	}
	return pe.Position.Line
}

// maxProblems bounds how many problems one Load reports (and locates).
const maxProblems = 20

// problems collects every problem found while loading, without duplicates.
type problems struct {
	list    []*Error
	seen    map[string]bool
	dropped int
}

// add records the problem at path in src. It locates the key only for
// problems that will be shown.
func (p *problems) add(src *source, path []string, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if p.first(strings.Join([]string{src.path, src.override, toml.Key(path).String(), msg}, "\x00")) {
		p.list = append(p.list, src.errorAt(path, msg))
	}
}

// addError records e.
func (p *problems) addError(e *Error) {
	if p.first(e.Error()) {
		p.list = append(p.list, e)
	}
}

// first reports whether the problem identified by id is new and is to be
// shown; it counts new ones beyond [maxProblems] as dropped.
func (p *problems) first(id string) bool {
	if p.seen[id] {
		return false
	}
	if p.seen == nil {
		p.seen = make(map[string]bool)
	}
	p.seen[id] = true
	if len(p.list) >= maxProblems {
		p.dropped++
		return false
	}
	return true
}

// err returns nil, the only problem, or every problem joined: the file's
// by line, then the overrides' in command-line order.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	if len(p.list) == 1 && p.dropped == 0 {
		return p.list[0]
	}
	slices.SortStableFunc(p.list, byPlace)
	errs := make([]error, 0, len(p.list)+1)
	for _, e := range p.list {
		errs = append(errs, e)
	}
	if p.dropped > 0 {
		errs = append(errs, fmt.Errorf("config: %d more problems not shown", p.dropped))
	}
	return errors.Join(errs...)
}

// byPlace orders config findings (problems, warnings) the way people read
// them: the file's by line, then the overrides' in command-line order
// (a stable sort keeps that order).
func byPlace(a, b *Error) int {
	if (a.Override == "") != (b.Override == "") {
		if a.Override == "" {
			return -1
		}
		return 1
	}
	if a.Override != "" {
		return 0
	}
	return cmp.Compare(a.Line, b.Line)
}
