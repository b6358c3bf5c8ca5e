package graph

import "strings"

// Graph is a set of tasks keyed by Key, kept in the order they were added so
// that everything derived from it is deterministic. A task's inputs need not
// be in the graph: such keys are results the cluster already holds.
type Graph struct {
	tasks map[Key]*Task
	order []*Task
}

// New returns an empty graph.
func New() *Graph {
	return &Graph{tasks: make(map[Key]*Task)}
}

// Add adds t unless a task with its key is already there; equal keys mean
// equal work, so the first one stays. It reports whether t was added.
func (g *Graph) Add(t *Task) bool {
	if _, ok := g.tasks[t.Key]; ok {
		return false
	}
	g.tasks[t.Key] = t
	g.order = append(g.order, t)
	return true
}

// Merge adds every task of o.
func (g *Graph) Merge(o *Graph) {
	for _, t := range o.order {
		g.Add(t)
	}
}

// Require makes the tasks under keys ask for r besides what they asked
// for: each is replaced by a copy, so graphs that share it are not changed.
func (g *Graph) Require(keys []Key, r Resources) {
	if len(r) == 0 {
		return
	}
	pos := make(map[Key]int, len(keys))
	for _, k := range keys {
		pos[k] = -1
	}
	for i, t := range g.order {
		if _, ok := pos[t.Key]; ok {
			pos[t.Key] = i
		}
	}
	for k, i := range pos {
		if i < 0 {
			continue // a result the cluster already holds
		}
		c := *g.order[i]
		c.Resources = c.Resources.With(r)
		g.tasks[k], g.order[i] = &c, &c
	}
}

// Clone is a graph with g's tasks, to which tasks can be added or Required
// without changing g.
func (g *Graph) Clone() *Graph {
	c := &Graph{tasks: make(map[Key]*Task, len(g.tasks)), order: make([]*Task, len(g.order))}
	copy(c.order, g.order)
	for k, t := range g.tasks {
		c.tasks[k] = t
	}
	return c
}

// Task returns the task under k, or nil.
func (g *Graph) Task(k Key) *Task { return g.tasks[k] }

// Len is the number of tasks.
func (g *Graph) Len() int { return len(g.order) }

// Tasks returns the tasks in the order they were added. The caller must not
// modify the slice.
func (g *Graph) Tasks() []*Task { return g.order }

// String prints one task a line, in order.
func (g *Graph) String() string {
	var b strings.Builder
	for _, t := range g.order {
		b.WriteString(t.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// Cull returns the tasks that the keys need, directly or through inputs, in
// the graph's order. Keys and inputs that are not in g are left out.
func Cull(g *Graph, keys []Key) *Graph {
	need := make(map[Key]bool, len(keys))
	stack := make([]Key, 0, len(keys))
	for _, k := range keys {
		if g.tasks[k] != nil && !need[k] {
			need[k] = true
			stack = append(stack, k)
		}
	}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, in := range g.tasks[k].Inputs {
			if g.tasks[in] != nil && !need[in] {
				need[in] = true
				stack = append(stack, in)
			}
		}
	}
	out := &Graph{tasks: make(map[Key]*Task, len(need)), order: make([]*Task, 0, len(need))}
	for _, t := range g.order {
		if need[t.Key] {
			out.tasks[t.Key] = t
			out.order = append(out.order, t)
		}
	}
	return out
}

// Fuse merges each linear chain of tasks into one task that runs the chain in
// a single step, so that no intermediate result is stored or moved. A task is
// folded into its dependent when it is that dependent's only input in the
// graph, the dependent is its only dependent, neither is in keep (the keys
// whose results must stay addressable), both need the same resources, and
// it is no shuffle task (a shuffle transfer may fold in what feeds it).
func Fuse(g *Graph, keep []Key) *Graph {
	kept := make(map[Key]bool, len(keep))
	for _, k := range keep {
		kept[k] = true
	}
	dependents := make(map[Key]int, len(g.order))
	for _, t := range g.order {
		for i, in := range t.Inputs {
			if g.tasks[in] != nil && !repeated(t.Inputs, i) {
				dependents[in]++
			}
		}
	}
	// absorbs[c] is the task that c folds in: its single parent.
	absorbs := make(map[Key]*Task)
	absorbed := make(map[Key]bool)
	for _, c := range g.order {
		p := soleInput(g, c)
		if p == nil || kept[p.Key] || dependents[p.Key] != 1 || !p.Resources.Equal(c.Resources) ||
			p.Shuffle != nil || c.Shuffle != nil && c.Shuffle.Role != Transfer {
			continue
		}
		absorbs[c.Key] = p
		absorbed[p.Key] = true
	}
	if len(absorbs) == 0 {
		return g
	}
	out := New()
	for _, t := range g.order {
		if absorbed[t.Key] {
			continue
		}
		if absorbs[t.Key] == nil {
			out.Add(t)
			continue
		}
		var chain []*Task
		for c := t; c != nil; c = absorbs[c.Key] {
			chain = append(chain, c)
		}
		out.Add(fused(chain))
	}
	return out
}

// soleInput returns c's only input among g's tasks, or nil when c has none
// or several.
func soleInput(g *Graph, c *Task) *Task {
	var p *Task
	for _, in := range c.Inputs {
		t := g.tasks[in]
		if t == nil || t == p {
			continue
		}
		if p != nil {
			return nil
		}
		p = t
	}
	return p
}

func repeated(keys []Key, i int) bool {
	for _, k := range keys[:i] {
		if k == keys[i] {
			return true
		}
	}
	return false
}

// fused builds the task that runs chain, which is listed tail first.
func fused(chain []*Task) *Task {
	tail := chain[0]
	var steps []*Task
	for i := len(chain) - 1; i >= 0; i-- {
		if c := chain[i]; c.Op == FusedOp {
			steps = append(steps, c.Chain...)
		} else {
			steps = append(steps, c)
		}
	}
	inside := make(map[Key]bool, len(steps))
	var inputs []Key
	seen := make(map[Key]bool)
	for _, s := range steps {
		for _, in := range s.Inputs {
			if !inside[in] && !seen[in] {
				seen[in] = true
				inputs = append(inputs, in)
			}
		}
		inside[s.Key] = true
	}
	return &Task{Key: tail.Key, Op: FusedOp, Inputs: inputs, Resources: tail.Resources, Chain: steps, Shuffle: tail.Shuffle}
}
