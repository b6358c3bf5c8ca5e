//go:build !amd64

package csv

func specialWords(data []byte, delims, nl, cr uint64, bits []uint64) {
	specialWordsGo(data, delims, nl, cr, bits)
}
