//go:build !amd64

package csv

func specialWords(data []byte, delims uint64, bits []uint64) { specialWordsGo(data, delims, bits) }
