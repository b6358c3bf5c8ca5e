package sql

import (
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
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
		for i, it := range list.Items {
			v, ok := b.literalValue(it)
			if !ok {
				return dataframe.Expr{}, b.errorf(it, "IN lists take constants yet")
			}
			vals[i] = v
		}
		out := l.IsIn(vals...)
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
	if tc := n.GetTypeCast(); tc != nil && typeName(tc.TypeName) == "date" {
		if s, ok := b.stringConst(tc.Arg); ok {
			if d, err := time.Parse("2006-01-02", s); err == nil {
				return d, true
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

// typeName is a type's name, without pg_catalog.
func typeName(t *pg.TypeName) string {
	names := strs(t.Names)
	if len(names) == 0 {
		return ""
	}
	return strings.ToLower(names[len(names)-1])
}

// castTypes are SQL's type names as Arrow's.
var castTypes = map[string]arrow.DataType{
	"int2": arrow.PrimitiveTypes.Int16, "int4": arrow.PrimitiveTypes.Int32, "int8": arrow.PrimitiveTypes.Int64,
	"integer": arrow.PrimitiveTypes.Int32, "bigint": arrow.PrimitiveTypes.Int64, "smallint": arrow.PrimitiveTypes.Int16,
	"float4": arrow.PrimitiveTypes.Float32, "float8": arrow.PrimitiveTypes.Float64, "real": arrow.PrimitiveTypes.Float32,
	"double": arrow.PrimitiveTypes.Float64, "text": arrow.BinaryTypes.String, "varchar": arrow.BinaryTypes.String,
	"bpchar": arrow.BinaryTypes.String, "bool": arrow.FixedWidthTypes.Boolean, "date": arrow.FixedWidthTypes.Date32,
	"timestamp": arrow.FixedWidthTypes.Timestamp_us,
}

func (b *binder) cast(n *pg.Node, tc *pg.TypeCast, sc scope) (dataframe.Expr, error) {
	name := typeName(tc.TypeName)
	if name == "date" {
		if s, ok := b.stringConst(tc.Arg); ok {
			if _, err := time.Parse("2006-01-02", s); err != nil {
				return dataframe.Expr{}, b.errorf(n, "date %q is not a date written 2006-01-02", s)
			}
			return dataframe.Date(s), nil
		}
	}
	if name == "interval" {
		return dataframe.Expr{}, b.errorf(n, "an interval may only be added to or taken from a date or timestamp yet")
	}
	arg, err := b.expr(tc.Arg, sc)
	if err != nil {
		return arg, err
	}
	if name == "numeric" || name == "decimal" {
		mods := tc.TypeName.Typmods
		if len(mods) == 0 {
			return arg.Cast(arrow.PrimitiveTypes.Float64), nil // numeric without precision: a float here
		}
		p, _ := b.literalValue(mods[0])
		s := any(int64(0))
		if len(mods) > 1 {
			s, _ = b.literalValue(mods[1])
		}
		pi, ok1 := p.(int64)
		si, ok2 := s.(int64)
		if !ok1 || !ok2 {
			return dataframe.Expr{}, b.errorf(n, "numeric's precision and scale must be integers")
		}
		return arg.Cast(dataframe.Decimal(int32(pi), int32(si))), nil
	}
	t, ok := castTypes[name]
	if !ok {
		return dataframe.Expr{}, b.errorf(n, "type %s is not supported yet", name)
	}
	return arg.Cast(t), nil
}

// interval is a span of calendar months and days.
type interval struct{ months, days int }

// intervalOf reads an interval literal: interval '3' month, interval '90'
// day, interval '1 year'.
func (b *binder) intervalOf(n *pg.Node) (interval, bool, error) {
	tc := n.GetTypeCast()
	if tc == nil || typeName(tc.TypeName) != "interval" {
		return interval{}, false, nil
	}
	s, ok := b.stringConst(tc.Arg)
	if !ok {
		return interval{}, true, b.errorf(n, "an interval takes a constant string")
	}
	fields := strings.Fields(strings.ToLower(s))
	unit := ""
	if len(tc.TypeName.Typmods) > 0 { // interval '3' month: the unit as a typmod mask
		m, _ := b.literalValue(tc.TypeName.Typmods[0])
		unit = map[int64]string{1 << 1: "month", 1 << 2: "year", 1 << 3: "day"}[asInt(m)]
		if unit == "" {
			return interval{}, true, b.errorf(n, "interval units other than year, month and day are not supported yet")
		}
	} else if len(fields) == 2 {
		unit = strings.TrimSuffix(fields[1], "s")
		fields = fields[:1]
	}
	if len(fields) != 1 {
		return interval{}, true, b.errorf(n, "interval %q: write it as interval '3' month or interval '3 months'", s)
	}
	k, err := strconv.Atoi(fields[0])
	if err != nil {
		return interval{}, true, b.errorf(n, "interval %q: %v", s, err)
	}
	switch unit {
	case "year":
		return interval{months: 12 * k}, true, nil
	case "month", "mon":
		return interval{months: k}, true, nil
	case "day":
		return interval{days: k}, true, nil
	case "week":
		return interval{days: 7 * k}, true, nil
	}
	return interval{}, true, b.errorf(n, "interval unit %q is not supported yet", unit)
}

func asInt(v any) int64 {
	i, _ := v.(int64)
	return i
}

// dateArith binds date ± interval: folded to a date where the date is a
// literal, else calendar months and days added to the column.
func (b *binder) dateArith(n *pg.Node, ae *pg.A_Expr, op string, sc scope) (dataframe.Expr, bool, error) {
	iv, ok, err := b.intervalOf(ae.Rexpr)
	if !ok || err != nil {
		return dataframe.Expr{}, ok, err
	}
	if op == "-" {
		iv = interval{-iv.months, -iv.days}
	}
	if tc := ae.Lexpr.GetTypeCast(); tc != nil && typeName(tc.TypeName) == "date" {
		if s, ok := b.stringConst(tc.Arg); ok {
			d, err := time.Parse("2006-01-02", s)
			if err != nil {
				return dataframe.Expr{}, true, b.errorf(ae.Lexpr, "date %q is not a date written 2006-01-02", s)
			}
			return dataframe.Date(addInterval(d, iv).Format("2006-01-02")), true, nil
		}
	}
	l, err := b.expr(ae.Lexpr, sc)
	if err != nil {
		return l, true, err
	}
	if iv.months != 0 {
		l = l.Add(dataframe.Months(iv.months))
	}
	if iv.days != 0 {
		l = l.Add(dataframe.Days(iv.days))
	}
	return l, true, nil
}

// addInterval adds months (clamped to the month's last day, as the
// dataframe's Months and PostgreSQL do) and days to d.
func addInterval(d time.Time, iv interval) time.Time {
	if iv.months != 0 {
		y, m, day := d.Date()
		first := time.Date(y, m+time.Month(iv.months), 1, 0, 0, 0, 0, time.UTC)
		last := first.AddDate(0, 1, -1).Day()
		d = time.Date(first.Year(), first.Month(), min(day, last), 0, 0, 0, 0, time.UTC)
	}
	return d.AddDate(0, 0, iv.days)
}

// function binds a call of a scalar function.
func (b *binder) function(n *pg.Node, fc *pg.FuncCall, sc scope) (dataframe.Expr, error) {
	name := funcName(fc)
	if fc.Over != nil {
		return dataframe.Expr{}, b.errorf(n, "window functions are not supported yet")
	}
	switch name {
	case "extract", "date_part":
		if len(fc.Args) != 2 {
			return dataframe.Expr{}, b.errorf(n, "%s takes a field and a value", name)
		}
		field, ok := b.stringConst(fc.Args[0])
		if !ok {
			return dataframe.Expr{}, b.errorf(fc.Args[0], "%s's field must be a constant", name)
		}
		v, err := b.expr(fc.Args[1], sc)
		if err != nil {
			return v, err
		}
		get, ok := dateFields[strings.ToLower(field)]
		if !ok {
			return dataframe.Expr{}, b.errorf(fc.Args[0], "field %q is not supported yet", field)
		}
		return get(v.Dt()), nil
	case "substring", "substr":
		if len(fc.Args) < 2 || len(fc.Args) > 3 {
			return dataframe.Expr{}, b.errorf(n, "%s takes a string, a start and a length", name)
		}
		v, err := b.expr(fc.Args[0], sc)
		if err != nil {
			return v, err
		}
		start, ok := b.literalValue(fc.Args[1])
		length := any(int64(-1))
		if len(fc.Args) == 3 {
			length, _ = b.literalValue(fc.Args[2])
		}
		s, ok1 := start.(int64)
		l, ok2 := length.(int64)
		if !ok || !ok1 || !ok2 {
			return dataframe.Expr{}, b.errorf(n, "%s takes constant integers for its start and length yet", name)
		}
		return v.Str().Slice(int(s-1), int(l)), nil
	}
	unary, ok := scalarFuncs[name]
	if !ok {
		return dataframe.Expr{}, b.errorf(n, "no function %s%s", name, closeNames(name, funcNames()))
	}
	if len(fc.Args) != 1 {
		return dataframe.Expr{}, b.errorf(n, "%s takes one argument, not %d", name, len(fc.Args))
	}
	v, err := b.expr(fc.Args[0], sc)
	if err != nil {
		return v, err
	}
	return unary(v), nil
}

// dateFields are EXTRACT's fields.
var dateFields = map[string]func(dataframe.DtExpr) dataframe.Expr{
	"year": dataframe.DtExpr.Year, "quarter": dataframe.DtExpr.Quarter, "month": dataframe.DtExpr.Month,
	"day": dataframe.DtExpr.Day, "hour": dataframe.DtExpr.Hour, "minute": dataframe.DtExpr.Minute,
	"second": dataframe.DtExpr.Second, "dow": dataframe.DtExpr.Weekday, "doy": dataframe.DtExpr.DayOfYear,
}

// scalarFuncs are the functions of one argument, by SQL's names.
var scalarFuncs = map[string]func(dataframe.Expr) dataframe.Expr{
	"abs": dataframe.Expr.Abs, "sqrt": dataframe.Expr.Sqrt, "ln": dataframe.Expr.Log, "exp": dataframe.Expr.Exp,
	"floor": dataframe.Expr.Floor, "ceil": dataframe.Expr.Ceil, "ceiling": dataframe.Expr.Ceil,
	"lower":  func(e dataframe.Expr) dataframe.Expr { return e.Str().Lower() },
	"upper":  func(e dataframe.Expr) dataframe.Expr { return e.Str().Upper() },
	"length": func(e dataframe.Expr) dataframe.Expr { return e.Str().Len() },
	"trim":   func(e dataframe.Expr) dataframe.Expr { return e.Str().Strip() },
	"round":  func(e dataframe.Expr) dataframe.Expr { return e.Round(0) },
}

func funcNames() []string {
	var out []string
	for n := range scalarFuncs {
		out = append(out, n)
	}
	for n := range aggregateSynonyms {
		out = append(out, n)
	}
	out = append(out, dataframe.Aggregations()...)
	return append(out, "extract", "substring", "coalesce", "nullif")
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
