package sql

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// Error is an error at a place in a query: its message, and the line and
// column (from 1) with the query's line under them and a caret.
type Error struct {
	Msg          string
	Line, Column int // 0: no place known
	Text         string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return "sql: " + e.Msg
	}
	return fmt.Sprintf("sql: line %d, column %d: %s\n  %s\n  %s^", e.Line, e.Column, e.Msg, e.Text, strings.Repeat(" ", e.Column-1))
}

// errorAt is an Error at byte offset off of query (-1: none).
func errorAt(query string, off int, msg string) *Error {
	if off < 0 || off > len(query) {
		return &Error{Msg: msg}
	}
	line := strings.Count(query[:off], "\n") + 1
	start := strings.LastIndexByte(query[:off], '\n') + 1
	end := strings.IndexByte(query[off:], '\n')
	if end < 0 {
		end = len(query)
	} else {
		end += off
	}
	return &Error{Msg: msg, Line: line, Column: len([]rune(query[start:off])) + 1, Text: query[start:end]}
}

// syntaxError places the parser's error where its cursor says: both
// builds of the parser give an error struct with Message and Cursorpos
// (the wasm build's type is internal to it, so it is read by reflection).
func syntaxError(query string, err error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		v := reflect.ValueOf(e)
		if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
			msg, pos := v.Elem().FieldByName("Message"), v.Elem().FieldByName("Cursorpos")
			if msg.IsValid() && pos.IsValid() && msg.Kind() == reflect.String && pos.CanInt() && pos.Int() > 0 {
				return errorAt(query, byteOffset(query, int(pos.Int())-1), msg.String())
			}
		}
	}
	return &Error{Msg: err.Error()}
}

// byteOffset is the byte offset of the i-th character of s (PostgreSQL's
// cursor counts characters).
func byteOffset(s string, i int) int {
	n := 0
	for off := range s {
		if n == i {
			return off
		}
		n++
	}
	return len(s)
}

// location is where a node of the syntax tree starts in the query, or -1:
// every node type that knows keeps it in a Location field.
func location(n any) int {
	if n == nil {
		return -1
	}
	if nd, ok := n.(*pg.Node); ok {
		if nd == nil || nd.Node == nil {
			return -1
		}
		v := reflect.ValueOf(nd.Node).Elem().Field(0).Interface()
		return location(v)
	}
	v := reflect.ValueOf(n)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return -1
	}
	if f := v.Elem().FieldByName("Location"); f.IsValid() && f.CanInt() {
		return int(f.Int())
	}
	return -1
}

// errorf is an error at node n of the query being bound.
func (b *binder) errorf(n any, format string, args ...any) error {
	return errorAt(b.query, location(n), fmt.Sprintf(format, args...))
}
