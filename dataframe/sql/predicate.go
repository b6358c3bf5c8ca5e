package sql

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// splitAnd splits a predicate at its top-level ANDs; an OR whose every
// branch holds the same conjunct has it taken out, as (a AND b) OR (a AND
// c) is a AND (b OR c): TPC-H q19's join key, repeated in each branch,
// then joins its tables.
func splitAnd(n *pg.Node) []*pg.Node {
	be := n.GetBoolExpr()
	if be != nil && be.Boolop == pg.BoolExprType_AND_EXPR {
		var out []*pg.Node
		for _, a := range be.Args {
			out = append(out, splitAnd(a)...)
		}
		return out
	}
	if be != nil && be.Boolop == pg.BoolExprType_OR_EXPR {
		return factorOr(be)
	}
	return []*pg.Node{n}
}

// factorOr takes the conjuncts every branch of an OR shares out of it.
func factorOr(be *pg.BoolExpr) []*pg.Node {
	branches := make([][]*pg.Node, len(be.Args))
	for i, a := range be.Args {
		branches[i] = splitAnd(a)
	}
	keyOf := map[*pg.Node]string{}
	canonOf := func(n *pg.Node) string {
		k, ok := keyOf[n]
		if !ok {
			k = canon(n)
			keyOf[n] = k
		}
		return k
	}
	var shared []*pg.Node
	for _, c := range branches[0] {
		key := canonOf(c)
		inAll := true
		for _, br := range branches[1:] {
			if !slices.ContainsFunc(br, func(d *pg.Node) bool { return canonOf(d) == key }) {
				inAll = false
				break
			}
		}
		if inAll {
			shared = append(shared, c)
		}
	}
	if len(shared) == 0 {
		return []*pg.Node{{Node: &pg.Node_BoolExpr{BoolExpr: be}}}
	}
	keys := map[string]bool{}
	for _, c := range shared {
		keys[canonOf(c)] = true
	}
	var rest []*pg.Node
	for _, br := range branches {
		var kept []*pg.Node
		for _, c := range br {
			if !keys[canonOf(c)] {
				kept = append(kept, c)
			}
		}
		if len(kept) == 0 { // a branch that is the shared conjuncts alone: the OR holds
			return shared
		}
		rest = append(rest, andOf(kept))
	}
	return append(shared, &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_OR_EXPR, Args: rest, Location: be.Location}}})
}

// canon is a node as text without its locations, to compare expressions.
func canon(n *pg.Node) string {
	c := proto.Clone(n)
	clearLocations(c.ProtoReflect())
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(c)
	return string(b)
}

func clearLocations(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Name() == "location":
			m.Clear(fd)
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				clearLocations(l.Get(i).Message())
			}
		case fd.Message() != nil && !fd.IsMap():
			clearLocations(v.Message())
		}
		return true
	})
}

// implied are conditions on one small table of rels (one partition) that
// the ORs of conjuncts imply: where every branch of an OR holds a
// condition on the table alone, the OR of those (TPC-H q7's (n1 = 'FRANCE'
// and n2 = 'GERMANY') or (n1 = 'GERMANY' and n2 = 'FRANCE') implies n1 in
// both), which filter the table before the joins and lead the join order
// to it: q7 at SF10 took 2.2 s, not 3.0. The ORs stay. (Large tables are
// left be: q19's lines, tested twice, took 0.12 s at SF1, not 0.09.)
func (b *binder) implied(rels []*relation, conjuncts []*pg.Node) []*pg.Node {
	var out []*pg.Node
	for _, c := range conjuncts {
		be := c.GetBoolExpr()
		if be == nil || be.Boolop != pg.BoolExprType_OR_EXPR || hasSubLink(c) {
			continue
		}
		for _, r := range rels {
			if readsOnly(c, r) || r.frame.NumPartitions() != 1 {
				continue // already a condition on r alone, or r is large
			}
			var branches []*pg.Node
			for _, br := range be.Args {
				var on []*pg.Node
				for _, x := range splitAnd(br) {
					if readsOnly(x, r) {
						on = append(on, x)
					}
				}
				if len(on) == 0 {
					branches = nil
					break
				}
				branches = append(branches, andOf(on))
			}
			if len(branches) > 0 {
				out = append(out, &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_OR_EXPR, Args: branches, Location: -1}}})
			}
		}
	}
	return out
}
