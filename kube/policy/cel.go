package policy

import (
	"strconv"
	"strings"

	"github.com/tandem-sh/tandem/internal/cmdline"
)

// The CEL this package writes is built from these few helpers, so that
// quoting and the shape of a list are written once.

// str is s as a CEL string literal (CEL reads Go's escapes).
func str(s string) string { return strconv.Quote(s) }

// strList is ss as a CEL list of string literals.
func strList(ss []string) string {
	quoted := make([]string, len(ss))
	for i, s := range ss {
		quoted[i] = str(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// v is a reference to the policy's variable name.
func v(name string) string { return "variables." + name }

// choose is a CEL chain of ternaries: the value of the first case whose
// condition holds, else otherwise.
func choose(cases [][2]string, otherwise string) string {
	var b strings.Builder
	for _, c := range cases {
		b.WriteString(c[0] + " ? " + c[1] + " : ")
	}
	return b.String() + otherwise
}

// duration is the CEL that writes tenths (an int expression, at least 0,
// a plain reference: it is repeated) as tandem's command lines do
// (internal/cmdline): whole seconds as "90s", else as Go's
// time.Duration.String ("500ms", "2.5s", "1m5.5s", "1h0m0.5s").
func duration(tenths string) string {
	t := tenths
	secs := "string((" + t + " % 600) / 10) + '.' + string(" + t + " % 10) + 's'"
	return choose([][2]string{
		{t + " % 10 == 0", "string(" + t + " / 10) + 's'"},
		{t + " < 10", "string(" + t + " * 100) + 'ms'"},
		{t + " < 600", "string(" + t + " / 10) + '.' + string(" + t + " % 10) + 's'"},
		{t + " < 36000", "string(" + t + " / 600) + 'm' + " + secs},
	}, "string("+t+" / 36000) + 'h' + string(("+t+" % 36000) / 600) + 'm' + "+secs)
}

// jsonPointer escapes one key of a JSON patch path (RFC 6901).
func jsonPointer(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// nameAt is the name of container i, typed: the API server types a
// variable's elements as dyn, and a list literal takes one type.
func nameAt(i string) string { return "string(" + v("names") + "[" + i + "])" }

// argvCEL is a tandem command line being written as CEL: a sum of CEL
// lists, its flags spelled by internal/cmdline.
type argvCEL []string

// command starts the command line of tandem's command cmd, tandem at bin
// (a CEL string).
func command(bin, cmd string) argvCEL { return argvCEL{"[" + bin + ", " + str(cmd) + "]"} }

// flagPair is the CEL list of flag and its value (a CEL string).
func flagPair(flag, value string) string { return "[" + str(cmdline.Flag(flag)) + ", " + value + "]" }

// flag writes flag and its value (a CEL string).
func (a *argvCEL) flag(flag, value string) { *a = append(*a, flagPair(flag, value)) }

// flagIf writes flag and its value where cond (a CEL bool) holds.
func (a *argvCEL) flagIf(cond, flag, value string) {
	*a = append(*a, "("+cond+" ? "+flagPair(flag, value)+" : [])")
}

// list writes a CEL list of arguments as it is.
func (a *argvCEL) list(expr string) { *a = append(*a, expr) }

// end ends the flags, as cmdline's builders do: CMD follows.
func (a argvCEL) end() string {
	return strings.Join(append(a, strList([]string{cmdline.EndOfFlags})), " + ")
}
