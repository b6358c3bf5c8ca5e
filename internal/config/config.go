// Package config gives every flag of the dusk commands two more sources, as
// Dask's configuration does: a YAML file (--config FILE, or
// ~/.config/dusk/dusk.yaml) and DUSK_* environment variables. A flag given
// on the command line wins over the environment, which wins over the file,
// which wins over the default. The file's top-level keys are flags of any
// command ("tls-ca-file: ca.pem") or a command's section ("worker:" with
// that command's flags under it, which win over the top level); an unknown
// key is an error naming the closest known one.
//
// Must never import: scheduler, worker, or the collections.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Commands maps each command's name to a function making its flags, fresh:
// the file's keys are checked against all of them.
type Commands map[string]func() *flag.FlagSet

var registry = struct {
	sync.Mutex
	cmds Commands
}{cmds: Commands{}}

// Register adds a command whose flags a file's keys may name; the packages
// that define commands call it from init.
func Register(cmd string, flags func() *flag.FlagSet) {
	registry.Lock()
	defer registry.Unlock()
	registry.cmds[cmd] = flags
}

// Registered returns the commands registered so far.
func Registered() Commands {
	registry.Lock()
	defer registry.Unlock()
	return maps.Clone(registry.cmds)
}

// Setting is one flag's effective value and where it came from.
type Setting struct {
	Flag, Value string
	// From is "default", "file PATH", "env DUSK_NAME" or "flag".
	From string
	// List holds the values of a repeatable flag whose Value is a
	// flag.Getter of []string; Value then joins them.
	List   []string
	IsList bool
}

// ConfigFlag is the flag that names the file; every command takes it.
const ConfigFlag = "config"

// Parse fills fs, the flags of command cmd, from the file, the environment
// and args, in that order, and returns every flag's setting. environ is
// the process's environment (os.Environ()).
func Parse(cmd string, fs *flag.FlagSet, args, environ []string) ([]Setting, error) {
	commands := Registered()
	var file string
	if fs.Lookup(ConfigFlag) == nil {
		fs.StringVar(&file, ConfigFlag, "", "YAML file of flag values (default ~/.config/dusk/dusk.yaml if it exists; $DUSK_CONFIG)")
	}
	path, explicit := configPath(args, environ)
	from := map[string]string{}
	if path != "" {
		values, err := readFile(path, explicit, commands)
		if err != nil {
			return nil, err
		}
		for _, scope := range []string{"", cmd} { // the command's section wins
			for name, vals := range values[scope] {
				if fs.Lookup(name) == nil {
					continue // another command's flag, at the top level
				}
				if err := setAll(fs, name, vals); err != nil {
					return nil, fmt.Errorf("%s: %s: %w", path, name, err)
				}
				from[name] = "file " + path
			}
		}
	}
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		name := EnvName(f.Name)
		v, ok := env[name]
		if !ok || err != nil || f.Name == ConfigFlag {
			return
		}
		vals := []string{v}
		if isList(f) {
			vals = strings.Split(v, ",")
		}
		if e := setAll(fs, f.Name, vals); e != nil {
			err = fmt.Errorf("%s: %w", name, e)
		}
		from[f.Name] = "env " + name
	})
	if err != nil {
		return nil, err
	}
	if isList := listFlags(fs); len(isList) > 0 {
		// A list given on the command line replaces the file's and the
		// environment's rather than adding to them.
		for _, name := range commandLineFlags(args) {
			if isList[name] && from[name] != "" {
				fs.Lookup(name).Value.(interface{ Reset() }).Reset()
			}
		}
	}
	if err := parseArgs(fs, args); err != nil {
		return nil, err
	}
	fs.Visit(func(f *flag.Flag) {
		for _, given := range commandLineFlags(args) {
			if given == f.Name {
				from[f.Name] = "flag"
			}
		}
	})
	var out []Setting
	fs.VisitAll(func(f *flag.Flag) {
		src := from[f.Name]
		if src == "" {
			src = "default"
		}
		s := Setting{Flag: f.Name, Value: f.Value.String(), From: src}
		if g, ok := f.Value.(flag.Getter); ok && isList(f) {
			s.List, s.IsList = g.Get().([]string)
		}
		out = append(out, s)
	})
	return out, nil
}

// parseArgs parses the command line into fs. A flag fs lacks fails naming
// the nearest it has, as a configuration file's unknown key does, rather
// than with the flag package's bare message and every flag's usage; -h
// still prints the usage.
func parseArgs(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		if usage != nil {
			usage()
		} else {
			fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
			fs.PrintDefaults()
		}
		return err
	}
	const undefined = "flag provided but not defined: "
	if err == nil || !strings.HasPrefix(err.Error(), undefined) {
		return err
	}
	name := strings.TrimLeft(strings.TrimPrefix(err.Error(), undefined), "-")
	var known []string
	fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
	msg := fmt.Sprintf("unknown flag --%s", name)
	if near := Closest(name, known); near != "" {
		msg += fmt.Sprintf(" (did you mean --%s?)", near)
	}
	return fmt.Errorf("%s; -h lists the flags", msg)
}

// EnvName is the environment variable of a flag: DUSK_ and its name in
// capitals, dashes as underscores (--memory-limit: DUSK_MEMORY_LIMIT).
func EnvName(flagName string) string {
	return "DUSK_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// configPath finds the file: --config in args, else $DUSK_CONFIG, else the
// user's default file if it exists. explicit says whether it was named.
func configPath(args, environ []string) (path string, explicit bool) {
	for i, a := range args {
		if a == "--" {
			break
		}
		name, v, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != ConfigFlag {
			continue
		}
		if hasValue {
			return v, true
		}
		if i+1 < len(args) {
			return args[i+1], true
		}
	}
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "DUSK_CONFIG="); ok && v != "" {
			return v, true
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".config", "dusk", "dusk.yaml")
		if _, err := os.Stat(p); err == nil {
			return p, false
		}
	}
	return "", false
}

// readFile reads the file into values by scope ("" for the top level, else
// a command) and flag name, each a list of values (one unless a YAML list).
func readFile(path string, explicit bool, commands Commands) (map[string]map[string][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if !explicit && errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("--config: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]map[string][]string{"": {}}
	if len(doc.Content) == 0 {
		return out, nil // an empty file
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s line %d: want keys and values", path, root.Line)
	}
	known := map[string]map[string]bool{}
	all := map[string]bool{}
	for cmd, mk := range commands {
		known[cmd] = map[string]bool{}
		mk().VisitAll(func(f *flag.Flag) {
			known[cmd][f.Name], all[f.Name] = true, true
		})
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if flags, isCmd := known[k.Value]; isCmd && v.Kind == yaml.MappingNode {
			section := map[string][]string{}
			for j := 0; j+1 < len(v.Content); j += 2 {
				sk, sv := v.Content[j], v.Content[j+1]
				if !flags[sk.Value] {
					if owners := owning(known, sk.Value); len(owners) > 0 {
						return nil, fmt.Errorf("%s line %d: unknown key %s.%s (a flag of %s, not of %s)",
							path, sk.Line, k.Value, sk.Value, strings.Join(owners, " and "), k.Value)
					}
					return nil, unknownKey(path, sk, k.Value+".", keys(flags))
				}
				vals, err := scalars(path, sk.Value, sv)
				if err != nil {
					return nil, err
				}
				section[sk.Value] = vals
			}
			out[k.Value] = section
			continue
		}
		if !all[k.Value] || k.Value == ConfigFlag {
			candidates := keys(all)
			for cmd := range known {
				candidates = append(candidates, cmd)
			}
			return nil, unknownKey(path, k, "", candidates)
		}
		vals, err := scalars(path, k.Value, v)
		if err != nil {
			return nil, err
		}
		out[""][k.Value] = vals
	}
	return out, nil
}

// scalars reads a value: a scalar, or a list of scalars (a repeatable flag).
func scalars(path, key string, n *yaml.Node) ([]string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return []string{n.Value}, nil
	case yaml.SequenceNode:
		var out []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("%s line %d: %s: want a value or a list of values", path, c.Line, key)
			}
			out = append(out, c.Value)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s line %d: %s: want a value or a list of values", path, n.Line, key)
}

func unknownKey(path string, k *yaml.Node, scope string, known []string) error {
	msg := fmt.Sprintf("%s line %d: unknown key %s%s", path, k.Line, scope, k.Value)
	if near := Closest(k.Value, known); near != "" {
		msg += fmt.Sprintf(" (did you mean %s%s?)", scope, near)
	}
	return errors.New(msg)
}

// Closest is the known name nearest to name by edit distance, if any is
// near enough to be a slip (at most a third of its letters, and 3).
func Closest(name string, known []string) string {
	best, bestD := "", min(3, max(1, len(name)/3))+1
	slices.Sort(known)
	for _, k := range known {
		if d := distance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// distance is Levenshtein's edit distance.
func distance(a, b string) int {
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

// owning names the commands that have a flag.
func owning(known map[string]map[string]bool, name string) []string {
	var out []string
	for cmd, flags := range known {
		if flags[name] {
			out = append(out, cmd)
		}
	}
	slices.Sort(out)
	return out
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// setAll sets a flag to each value in turn (a repeatable flag keeps all).
func setAll(fs *flag.FlagSet, name string, vals []string) error {
	f := fs.Lookup(name)
	if len(vals) > 1 && !isList(f) {
		return errors.New("takes one value, not a list")
	}
	if isList(f) {
		f.Value.(interface{ Reset() }).Reset()
	}
	for _, v := range vals {
		if err := fs.Set(name, v); err != nil {
			return err
		}
	}
	return nil
}

// isList reports whether a flag is repeatable: its value has Reset.
func isList(f *flag.Flag) bool {
	_, ok := f.Value.(interface{ Reset() })
	return ok
}

func listFlags(fs *flag.FlagSet) map[string]bool {
	out := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) {
		if isList(f) {
			out[f.Name] = true
		}
	})
	return out
}

// commandLineFlags names the flags args give, in order.
func commandLineFlags(args []string) []string {
	var out []string
	for _, a := range args {
		if a == "--" || !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		out = append(out, name)
	}
	return out
}
