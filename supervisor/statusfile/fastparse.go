package statusfile

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// parseFast decodes the status lines tandem writes, and any as plain (known
// keys spelt exactly, strings without escapes, integers, no nulls), without
// encoding/json: its reflection costs some 50 to 200 µs on a cold cache, and
// this parse lies between the done file and the stop signal. ok is false on
// anything else, which Parse then leaves to encoding/json; what it accepts,
// it decodes as encoding/json would (FuzzParseFastAgrees).
func parseFast(line []byte) (f File, ok bool) {
	p := fastParser{b: line}
	if !p.take('{') {
		return File{}, false
	}
	if p.take('}') {
		return f, p.end()
	}
	for {
		key, ok := p.str()
		if !ok || !p.take(':') || !p.field(&f, key) {
			return File{}, false
		}
		if p.take('}') {
			return f, p.end()
		}
		if !p.take(',') {
			return File{}, false
		}
	}
}

type fastParser struct {
	b []byte
	i int
}

func (p *fastParser) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\r' || p.b[p.i] == '\n') {
		p.i++
	}
}

// take skips white space and c, if c is next.
func (p *fastParser) take(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// end: nothing but white space is left.
func (p *fastParser) end() bool {
	p.space()
	return p.i == len(p.b)
}

// str is a string without escapes or control characters, in valid UTF-8.
func (p *fastParser) str() (string, bool) {
	if !p.take('"') {
		return "", false
	}
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			return string(s), utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return "", false
		}
		p.i++
	}
	return "", false
}

// integer is -?(0|[1-9][0-9]*) that fits an int.
func (p *fastParser) integer() (int, bool) {
	p.space()
	start := p.i
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	if p.i == digits || (p.b[digits] == '0' && p.i-digits > 1) {
		return 0, false
	}
	n, err := strconv.Atoi(string(p.b[start:p.i]))
	return n, err == nil
}

// field decodes key's value into f; false for a key File does not spell
// exactly so, or a value of another kind.
func (p *fastParser) field(f *File, key string) bool {
	var ok bool
	switch key {
	case "version":
		f.Version, ok = p.integer()
	case "exitCode":
		f.ExitCode, ok = p.integer()
	case "name":
		f.Name, ok = p.str()
	case "event":
		f.Event, ok = p.str()
	case "signal":
		f.Signal, ok = p.str()
	case "reason":
		f.Reason, ok = p.str()
	case "host":
		f.Host, ok = p.str()
	case "time":
		start := p.i
		if _, ok = p.str(); ok { // the literal itself, as encoding/json hands it over
			ok = f.Time.UnmarshalJSON(bytes.TrimLeft(p.b[start:p.i], " \t\r\n")) == nil
		}
	}
	return ok
}
