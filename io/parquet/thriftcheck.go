package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// parquet-go decodes a file's footer (thrift's compact protocol) by
// making each list as long as it claims before reading its elements, so a
// damaged count cost gigabytes. checkFooter walks the footer first, as the
// protocol describes itself, element by element: a claim that the bytes
// do not hold fails before parquet-go allocates it.
func checkFooter(r io.ReaderAt, size int64) error {
	// The smallest file is its two magics, the footer's length and a
	// footer of one byte; parquet-go took the length of a shorter one
	// (PAR1PAR1) from the header's magic and allocated it, up to 4 GiB.
	if size < 13 {
		return fmt.Errorf("not a Parquet file: %d bytes, under the 13 of the smallest", size)
	}
	var head [4]byte
	var tail [8]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return err
	}
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	switch {
	case string(tail[4:]) == "PARE":
		// parquet-go took it as a plain footer and allocated its length.
		return errors.New("the footer is encrypted (it ends in PARE): Dusk reads no encrypted Parquet")
	case string(head[:]) != "PAR1" || string(tail[4:]) != "PAR1":
		return fmt.Errorf("not a Parquet file: it starts with %q and ends with %q, where both are \"PAR1\"", head, tail[4:])
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n == 0 || n > size-12 {
		return fmt.Errorf("the footer claims %d bytes of a file of %d", n, size)
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return err
	}
	w := &thriftWalk{b: footer}
	if err := w.structure(0); err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	return nil
}

// thriftWalk steps over a compact-protocol value, checking each length
// and count against the bytes left.
type thriftWalk struct {
	b   []byte
	pos int
}

var errThrift = errors.New("damaged metadata")

func (w *thriftWalk) byte() (byte, error) {
	if w.pos >= len(w.b) {
		return 0, fmt.Errorf("%w: cut short", errThrift)
	}
	c := w.b[w.pos]
	w.pos++
	return c, nil
}

func (w *thriftWalk) varint() (uint64, error) {
	v, n := binary.Uvarint(w.b[w.pos:])
	if n <= 0 {
		return 0, fmt.Errorf("%w: a bad varint at byte %d", errThrift, w.pos)
	}
	w.pos += n
	return v, nil
}

func (w *thriftWalk) skip(n uint64) error {
	if n > uint64(len(w.b)-w.pos) {
		return fmt.Errorf("%w: %d bytes claimed at byte %d, %d left", errThrift, n, w.pos, len(w.b)-w.pos)
	}
	w.pos += int(n)
	return nil
}

// maxDepth bounds the nesting of structs and lists.
const maxDepth = 64

func (w *thriftWalk) structure(depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%w: nested too deep", errThrift)
	}
	for {
		h, err := w.byte()
		if err != nil {
			return err
		}
		if h == 0 {
			return nil // stop
		}
		if h>>4 == 0 { // a long field id
			if _, err := w.varint(); err != nil {
				return err
			}
		}
		if err := w.value(h&0x0f, depth); err != nil {
			return err
		}
	}
}

// value steps over a value of compact type t.
func (w *thriftWalk) value(t byte, depth int) error {
	switch t {
	case 1, 2: // bool, in the header (a list's takes a byte)
		return nil
	case 3: // byte
		_, err := w.byte()
		return err
	case 4, 5, 6: // i16, i32, i64
		_, err := w.varint()
		return err
	case 7: // double
		return w.skip(8)
	case 8: // binary
		n, err := w.varint()
		if err != nil {
			return err
		}
		return w.skip(n)
	case 9, 10: // list, set
		h, err := w.byte()
		if err != nil {
			return err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = w.varint(); err != nil {
				return err
			}
		}
		if n > uint64(len(w.b)-w.pos) { // every element takes a byte
			return fmt.Errorf("%w: a list of %d at byte %d, %d bytes left", errThrift, n, w.pos, len(w.b)-w.pos)
		}
		for i := uint64(0); i < n; i++ {
			if err := w.element(h&0x0f, depth+1); err != nil {
				return err
			}
		}
		return nil
	case 11: // map
		n, err := w.varint()
		if err != nil || n == 0 {
			return err
		}
		if n > uint64(len(w.b)-w.pos) {
			return fmt.Errorf("%w: a map of %d at byte %d", errThrift, n, w.pos)
		}
		kv, err := w.byte()
		if err != nil {
			return err
		}
		for i := uint64(0); i < n; i++ {
			if err := w.element(kv>>4, depth+1); err != nil {
				return err
			}
			if err := w.element(kv&0x0f, depth+1); err != nil {
				return err
			}
		}
		return nil
	case 12: // struct
		return w.structure(depth + 1)
	}
	return fmt.Errorf("%w: unknown type %d at byte %d", errThrift, t, w.pos)
}

// element steps over an element of a list or map, where a bool takes a
// byte of its own.
func (w *thriftWalk) element(t byte, depth int) error {
	if t == 1 || t == 2 {
		_, err := w.byte()
		return err
	}
	return w.value(t, depth)
}
