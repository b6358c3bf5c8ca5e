package scheduler

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
)

// counts are a prefix's tasks by state, kept as tasks move (setState), so
// that a progress report costs one pass over the prefixes, not the tasks.
type counts struct {
	states        [Forgotten]int // live tasks by state
	releasedDone  int            // of states[Released]: tasks that ran
	forgottenDone int            // tasks that ran and were forgotten since
}

// move counts t's move from its state to the state to, before it happens.
func (c *counts) move(t *task, to TaskState) {
	from := t.state
	if from < Forgotten {
		c.states[from]--
	}
	if from == Released && t.done {
		c.releasedDone--
	}
	switch to {
	case Memory:
		t.done = true
	case Waiting, NoWorker, Queued, Processing, Erred:
		t.done = false
	}
	switch {
	case to < Forgotten:
		c.states[to]++
		if to == Released && t.done {
			c.releasedDone++
		}
	case t.done:
		c.forgottenDone++
	}
	if c.live() == 0 {
		c.forgottenDone = 0 // the prefix's work is over and forgotten
	}
}

func (c *counts) live() int {
	n := 0
	for _, v := range c.states {
		n += v
	}
	return n
}

// Progress reports the prefixes with tasks, by name.
func (s *State) Progress() []protocol.Progress {
	var out []protocol.Progress
	for name, p := range s.prefixes {
		c := &p.counts
		if c.live() == 0 {
			continue
		}
		out = append(out, protocol.Progress{Prefix: name,
			Waiting:    c.states[Released] - c.releasedDone + c.states[Waiting] + c.states[NoWorker] + c.states[Queued],
			Processing: c.states[Processing], Memory: c.states[Memory],
			Done: c.releasedDone + c.forgottenDone, Erred: c.states[Erred]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Prefix < out[j].Prefix })
	return out
}

// validateCounts checks that each prefix's counts equal its tasks'.
func (s *State) validateCounts(bad func(string, ...any)) {
	want := map[*prefix]*counts{}
	for t := range s.tasks.all() {
		c := want[t.prefix]
		if c == nil {
			c = &counts{}
			want[t.prefix] = c
		}
		c.states[t.state]++
		if t.state == Released && t.done {
			c.releasedDone++
		}
	}
	for name, p := range s.prefixes {
		c := want[p]
		if c == nil {
			c = &counts{}
		}
		if c.states != p.counts.states || c.releasedDone != p.counts.releasedDone {
			bad("prefix %s counts %s, but its tasks are %s", name, p.counts.describe(), c.describe())
		}
	}
}

func (c *counts) describe() string {
	return fmt.Sprintf("%v (%d released done)", c.states, c.releasedDone)
}

// neighboursShown bounds the inputs and dependents TaskInfo lists.
const neighboursShown = 100

// TaskInfo describes the task of key k, if the scheduler knows it.
func (s *State) TaskInfo(k graph.Key) (protocol.TaskInfo, bool) {
	t := s.tasks.get(k)
	if t == nil {
		return protocol.TaskInfo{}, false
	}
	info := protocol.TaskInfo{Key: k, State: t.state.String(), Nbytes: t.nbytes, Err: t.ex().err}
	for _, w := range t.whoHas {
		info.WhoHas = append(info.WhoHas, w.id)
	}
	if t.processingOn != nil {
		info.ProcessingOn = t.processingOn.id
	}
	for _, d := range t.deps()[:min(len(t.deps()), neighboursShown)] {
		info.Dependencies = append(info.Dependencies, d.key())
	}
	for _, d := range t.dependents()[:min(len(t.dependents()), neighboursShown)] {
		info.Dependents = append(info.Dependents, d.key())
	}
	return info, true
}

// Groups describes the graph by task kind: each kind with tasks, as
// Progress reports it, and the kinds its tasks take inputs from. It visits
// every task: it is for a page that asks now and then, not for each event.
func (s *State) Groups() []protocol.Group {
	inputs := map[string]map[string]bool{}
	for t := range s.tasks.all() {
		for _, d := range t.deps() {
			if d.prefix != t.prefix {
				in := inputs[t.prefix.name]
				if in == nil {
					in = map[string]bool{}
					inputs[t.prefix.name] = in
				}
				in[d.prefix.name] = true
			}
		}
	}
	progress := s.Progress()
	out := make([]protocol.Group, len(progress))
	for i, p := range progress {
		out[i] = protocol.Group{Progress: p, Inputs: slices.Sorted(maps.Keys(inputs[p.Prefix]))}
	}
	return out
}
