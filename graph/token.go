package graph

import (
	"encoding/binary"
	"encoding/hex"

	"github.com/cespare/xxhash/v2"
)

// tokenLen is the number of hex digits of a token: 64 bits, so that even a
// cache of billions of results is unlikely to see two kinds of work collide.
const tokenLen = 16

// Name returns "prefix-token", where the token hashes the operation, its
// encoded arguments and the names of its inputs, in order. Equal work gets
// equal names: graphs merge, and persisted or cached results are reused.
func Name(prefix, op string, args []byte, inputs ...string) string {
	var h xxhash.Digest
	h.Reset()
	writeField(&h, []byte(op))
	writeField(&h, args)
	for _, in := range inputs {
		writeField(&h, []byte(in))
	}
	var sum [8]byte
	binary.BigEndian.PutUint64(sum[:], h.Sum64())
	return prefix + "-" + hex.EncodeToString(sum[:])
}

// writeField writes a length before the bytes so that ("ab","c") and
// ("a","bc") hash apart.
func writeField(h *xxhash.Digest, b []byte) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}
