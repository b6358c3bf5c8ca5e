package sql

import (
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/duskdata/dusk/dataframe"
)

// expr binds an expression of the query in scope sc.
func (b *binder) expr(n *pg.Node, sc scope) (dataframe.Expr, error) {
	if n == nil || n.Node == nil {
		return dataframe.Expr{}, fmt.Errorf("sql: an expression is missing")
	}
	if e, ok := sc.grouped(n); ok {
		return e, nil
	}
	switch v := n.Node.(type) {
	case *pg.Node_ColumnRef:
		return sc.column(n, v.ColumnRef)
	case *pg.Node_AConst:
		return b.constant(n, v.AConst)
	case *pg.Node_ParamRef:
		val, err := b.param(v.ParamRef)
		if err != nil {
			return dataframe.Expr{}, b.errorf(n, "%v", err)
		}
		return dataframe.Lit(val), nil
	case *pg.Node_TypeCast:
		return b.cast(n, v.TypeCast, sc)
	case *pg.Node_BoolExpr:
		return b.boolExpr(n, v.BoolExpr, sc)
	case *pg.Node_AExpr:
		return b.aExpr(n, v.AExpr, sc)
	case *pg.Node_NullTest:
		arg, err := b.expr(v.NullTest.Arg, sc)
		if err != nil {
			return arg, err
		}
		if v.NullTest.Nulltesttype == pg.NullTestType_IS_NOT_NULL {
			return arg.NotNull(), nil
		}
		return arg.IsNull(), nil
	case *pg.Node_CaseExpr:
		return b.caseExpr(n, v.CaseExpr, sc)
	case *pg.Node_CoalesceExpr:
		args, err := b.exprs(v.CoalesceExpr.Args, sc)
		if err != nil {
			return dataframe.Expr{}, err
		}
		rest := make([]any, len(args)-1)
		for i, a := range args[1:] {
			rest[i] = a
		}
		return dataframe.Coalesce(args[0], rest...), nil
	case *pg.Node_FuncCall:
		if isAggregate(funcName(v.FuncCall)) && v.FuncCall.Over == nil {
			return sc.aggregate(n, v.FuncCall)
		}
		return b.function(n, v.FuncCall, sc)
	case *pg.Node_SubLink:
		return dataframe.Expr{}, b.errorf(n, "subqueries in expressions are not supported yet")
	}
	return dataframe.Expr{}, b.errorf(n, "this kind of expression (%s) is not supported yet", nodeKind(n))
}

func (b *binder) exprs(ns []*pg.Node, sc scope) ([]dataframe.Expr, error) {
	out := make([]dataframe.Expr, len(ns))
	for i, n := range ns {
		e, err := b.expr(n, sc)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// nodeKind names a node's type for an error, as PostgreSQL's source does.
func nodeKind(n *pg.Node) string {
	return strings.TrimPrefix(reflect.TypeOf(n.Node).Elem().Name(), "Node_")
}

// param is the value of $n.
func (b *binder) param(p *pg.ParamRef) (any, error) {
	if int(p.Number) < 1 || int(p.Number) > len(b.args) {
		return nil, fmt.Errorf("$%d: %d arguments given", p.Number, len(b.args))
	}
	return b.args[p.Number-1], nil
}

// constant is a literal: an integer, a number with a point (float64), a
// string, a boolean or NULL.
func (b *binder) constant(n *pg.Node, c *pg.A_Const) (dataframe.Expr, error) {
	if c.Isnull {
		return dataframe.Lit(nil), nil
	}
	switch v := c.Val.(type) {
	case *pg.A_Const_Ival:
		return dataframe.Lit(int64(v.Ival.Ival)), nil
	case *pg.A_Const_Fval:
		if i, err := strconv.ParseInt(v.Fval.Fval, 10, 64); err == nil { // an integer past int32
			return dataframe.Lit(i), nil
		}
		f, err := strconv.ParseFloat(v.Fval.Fval, 64)
		if err != nil {
			return dataframe.Expr{}, b.errorf(n, "%v", err)
		}
		return dataframe.Lit(f), nil
	case *pg.A_Const_Sval:
		return dataframe.Lit(v.Sval.Sval), nil
	case *pg.A_Const_Boolval:
		return dataframe.Lit(v.Boolval.Boolval), nil
	}
	return dataframe.Expr{}, b.errorf(n, "this kind of constant is not supported yet")
}

func (b *binder) boolExpr(n *pg.Node, be *pg.BoolExpr, sc scope) (dataframe.Expr, error) {
	args, err := b.exprs(be.Args, sc)
	if err != nil {
		return dataframe.Expr{}, err
	}
	switch be.Boolop {
	case pg.BoolExprType_NOT_EXPR:
		return args[0].Not(), nil
	case pg.BoolExprType_AND_EXPR:
		out := args[0]
		for _, a := range args[1:] {
			out = out.And(a)
		}
		return out, nil
	case pg.BoolExprType_OR_EXPR:
		out := args[0]
		for _, a := range args[1:] {
			out = out.Or(a)
		}
		return out, nil
	}
	return dataframe.Expr{}, b.errorf(n, "unknown boolean operator")
}

// binaryOps are SQL's binary operators as the dataframe's.
var binaryOps = map[string]func(a dataframe.Expr, v any) dataframe.Expr{
	"=": dataframe.Expr.Eq, "<>": dataframe.Expr.Ne, "!=": dataframe.Expr.Ne,
	"<": dataframe.Expr.Lt, "<=": dataframe.Expr.Le, ">": dataframe.Expr.Gt, ">=": dataframe.Expr.Ge,
	"+": dataframe.Expr.Add, "-": dataframe.Expr.Sub, "*": dataframe.Expr.Mul, "/": dataframe.Expr.Div,
	"%": dataframe.Expr.Mod, "^": dataframe.Expr.Pow,
}

func (b *binder) aExpr(n *pg.Node, ae *pg.A_Expr, sc scope) (dataframe.Expr, error) {
	op := ""
	if names := strs(ae.Name); len(names) > 0 {
		op = names[len(names)-1]
	}
	switch ae.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		if ae.Lexpr == nil { // a prefix operator
			arg, err := b.expr(ae.Rexpr, sc)
			if err != nil {
				return arg, err
			}
			switch op {
			case "-":
				return arg.Neg(), nil
			case "+":
				return arg, nil
			}
			return dataframe.Expr{}, b.errorf(n, "operator %s is not supported yet", op)
		}
		if op == "+" || op == "-" {
			if e, ok, err := b.dateArith(n, ae, op, sc); ok || err != nil {
				return e, err
			}
		}
		if r, isInt, ok := b.numeric(n); ok {
			if isInt {
				return dataframe.Lit(r.Num().Int64()), nil
			}
			f, _ := r.Float64()
			return dataframe.Lit(f), nil
		}
		if op == "||" {
			l, r, err := b.operands(ae, sc)
			if err != nil {
				return l, err
			}
			return dataframe.ConcatStr(l, r), nil
		}
		fn, ok := binaryOps[op]
		if !ok {
			return dataframe.Expr{}, b.errorf(n, "operator %s is not supported yet", op)
		}
		l, r, err := b.operands(ae, sc)
		if err != nil {
			return l, err
		}
		return fn(l, r), nil
	case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE:
		l, err := b.expr(ae.Lexpr, sc)
		if err != nil {
			return l, err
		}
		pat, ok := b.stringConst(ae.Rexpr)
		if !ok {
			return dataframe.Expr{}, b.errorf(ae.Rexpr, "LIKE takes a constant pattern yet")
		}
		if ae.Kind == pg.A_Expr_Kind_AEXPR_ILIKE {
			l, pat = l.Str().Lower(), strings.ToLower(pat)
		}
		out := l.Str().Like(pat)
		if strings.HasPrefix(op, "!") {
			out = out.Not()
		}
		return out, nil
	case pg.A_Expr_Kind_AEXPR_IN:
		l, err := b.expr(ae.Lexpr, sc)
		if err != nil {
			return l, err
		}
		list := ae.Rexpr.GetList()
		if list == nil {
			return dataframe.Expr{}, b.errorf(n, "IN takes a list of values here")
		}
		vals := make([]any, len(list.Items))
		constant := true
		for i, it := range list.Items {
			v, ok := b.literalValue(it)
			constant = constant && ok && v != nil
			vals[i] = v
		}
		var out dataframe.Expr
		if constant {
			out = l.IsIn(vals...)
		} else {
			// Expressions, or a null (x IN (1, NULL) is null where x is
			// not 1): x = a OR x = b ..., SQL's definition.
			items, err := b.exprs(list.Items, sc)
			if err != nil {
				return l, err
			}
			out = l.Eq(items[0])
			for _, it := range items[1:] {
				out = out.Or(l.Eq(it))
			}
		}
		if op == "<>" {
			out = out.Not()
		}
		return out, nil
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		l, err := b.expr(ae.Lexpr, sc)
		if err != nil {
			return l, err
		}
		bounds, err := b.exprs(ae.Rexpr.GetList().Items, sc)
		if err != nil {
			return l, err
		}
		out := l.Between(bounds[0], bounds[1])
		if ae.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN {
			out = out.Not()
		}
		return out, nil
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		l, r, err := b.operands(ae, sc)
		if err != nil {
			return l, err
		}
		return dataframe.When(l.Eq(r)).Then(nil).Otherwise(l), nil
	}
	return dataframe.Expr{}, b.errorf(n, "this kind of operator is not supported yet")
}

// numeric folds arithmetic over numeric constants exactly, as SQL's
// numeric type computes it (0.06 - 0.01 is 0.05, where float64s give
// 0.049999...), and reports whether the value is an integer of integers
// (whose division truncates, as SQL's).
func (b *binder) numeric(n *pg.Node) (r *big.Rat, isInt, ok bool) {
	if c := n.GetAConst(); c != nil && !c.Isnull {
		switch v := c.Val.(type) {
		case *pg.A_Const_Ival:
			return new(big.Rat).SetInt64(int64(v.Ival.Ival)), true, true
		case *pg.A_Const_Fval:
			r, ok := new(big.Rat).SetString(v.Fval.Fval)
			return r, ok && !strings.ContainsAny(v.Fval.Fval, ".eE"), ok
		}
		return nil, false, false
	}
	ae := n.GetAExpr()
	if ae == nil || ae.Kind != pg.A_Expr_Kind_AEXPR_OP || len(strs(ae.Name)) != 1 {
		return nil, false, false
	}
	op := strs(ae.Name)[0]
	r2, int2, ok := b.numeric(ae.Rexpr)
	if !ok {
		return nil, false, false
	}
	if ae.Lexpr == nil {
		if op == "-" {
			return new(big.Rat).Neg(r2), int2, true
		}
		return nil, false, false
	}
	r1, int1, ok := b.numeric(ae.Lexpr)
	if !ok {
		return nil, false, false
	}
	both := int1 && int2
	switch op {
	case "+":
		return new(big.Rat).Add(r1, r2), both, true
	case "-":
		return new(big.Rat).Sub(r1, r2), both, true
	case "*":
		return new(big.Rat).Mul(r1, r2), both, true
	case "/":
		if r2.Sign() == 0 {
			return nil, false, false // left to fail as the engine does
		}
		q := new(big.Rat).Quo(r1, r2)
		if both {
			return new(big.Rat).SetInt(new(big.Int).Quo(r1.Num(), r2.Num())), true, true
		}
		return q, false, true
	}
	return nil, false, false
}

func (b *binder) operands(ae *pg.A_Expr, sc scope) (dataframe.Expr, dataframe.Expr, error) {
	l, err := b.expr(ae.Lexpr, sc)
	if err != nil {
		return l, l, err
	}
	r, err := b.expr(ae.Rexpr, sc)
	return l, r, err
}

// literalValue is a constant's Go value (for IN lists).
func (b *binder) literalValue(n *pg.Node) (any, bool) {
	if p := n.GetParamRef(); p != nil {
		v, err := b.param(p)
		return v, err == nil
	}
	if tc := n.GetTypeCast(); tc != nil && (typeName(tc.TypeName) == "date" || typeName(tc.TypeName) == "timestamp") {
		if s, ok := b.stringConst(tc.Arg); ok {
			for _, layout := range []string{"2006-01-02", "2006-01-02 15:04:05.999999999"} {
				if d, err := time.Parse(layout, s); err == nil && (layout == "2006-01-02") == (typeName(tc.TypeName) == "date") {
					return d, true
				}
			}
		}
		return nil, false
	}
	c := n.GetAConst()
	if c == nil {
		if ae := n.GetAExpr(); ae != nil && ae.Lexpr == nil && len(strs(ae.Name)) == 1 && strs(ae.Name)[0] == "-" {
			if v, ok := b.literalValue(ae.Rexpr); ok {
				switch v := v.(type) {
				case int64:
					return -v, true
				case float64:
					return -v, true
				}
			}
		}
		return nil, false
	}
	if c.Isnull {
		return nil, true
	}
	switch v := c.Val.(type) {
	case *pg.A_Const_Ival:
		return int64(v.Ival.Ival), true
	case *pg.A_Const_Fval:
		if i, err := strconv.ParseInt(v.Fval.Fval, 10, 64); err == nil {
			return i, true
		}
		f, err := strconv.ParseFloat(v.Fval.Fval, 64)
		return f, err == nil
	case *pg.A_Const_Sval:
		return v.Sval.Sval, true
	case *pg.A_Const_Boolval:
		return v.Boolval.Boolval, true
	}
	return nil, false
}

func (b *binder) stringConst(n *pg.Node) (string, bool) {
	if p := n.GetParamRef(); p != nil {
		v, err := b.param(p)
		s, ok := v.(string)
		return s, ok && err == nil
	}
	if c := n.GetAConst(); c != nil {
		if s, ok := c.Val.(*pg.A_Const_Sval); ok {
			return s.Sval.Sval, true
		}
	}
	return "", false
}

func (b *binder) caseExpr(n *pg.Node, ce *pg.CaseExpr, sc scope) (dataframe.Expr, error) {
	var subject dataframe.Expr
	if ce.Arg != nil {
		var err error
		if subject, err = b.expr(ce.Arg, sc); err != nil {
			return subject, err
		}
	}
	var cond dataframe.Conditional
	for i, w := range ce.Args {
		cw := w.GetCaseWhen()
		c, err := b.expr(cw.Expr, sc)
		if err != nil {
			return c, err
		}
		if ce.Arg != nil {
			c = subject.Eq(c)
		}
		res, err := b.expr(cw.Result, sc)
		if err != nil {
			return res, err
		}
		if i == 0 {
			cond = dataframe.When(c).Then(res)
		} else {
			cond = cond.When(c).Then(res)
		}
	}
	var def any // nil: NULL
	if ce.Defresult != nil {
		d, err := b.expr(ce.Defresult, sc)
		if err != nil {
			return d, err
		}
		def = d
	}
	return cond.Otherwise(def), nil
}

// children are a node's sub-expressions, for walks over the tree.
func children(n *pg.Node) []*pg.Node {
	var out []*pg.Node
	v := reflect.ValueOf(n.Node).Elem().Field(0) // the *pg.X the Node holds
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return nil
	}
	v = v.Elem()
	for i := 0; i < v.NumField(); i++ {
		if !v.Type().Field(i).IsExported() {
			continue
		}
		switch f := v.Field(i).Interface().(type) {
		case *pg.Node:
			if f != nil {
				out = append(out, f)
			}
		case []*pg.Node:
			out = append(out, f...)
		}
	}
	return out
}
