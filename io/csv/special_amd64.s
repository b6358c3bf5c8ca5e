#include "textflag.h"

// MASK16 sets the low 16 bits of reg where the 16 bytes at off(SI) equal
// one of the four bytes broadcast in X8 to X11.
#define MASK16(off, reg) \
	MOVOU off(SI), X0; \
	MOVO X0, X1; \
	MOVO X0, X2; \
	MOVO X0, X3; \
	PCMPEQB X8, X0; \
	PCMPEQB X9, X1; \
	PCMPEQB X10, X2; \
	PCMPEQB X11, X3; \
	POR X1, X0; \
	POR X3, X2; \
	POR X2, X0; \
	PMOVMSKB X0, reg

// func specialWords(data []byte, delims, nl, cr uint64, bits []uint64)
TEXT ·specialWords(SB), NOSPLIT, $0-72
	MOVQ data_base+0(FP), SI
	MOVQ delims+24(FP), X8
	PUNPCKLQDQ X8, X8
	MOVQ nl+32(FP), X9
	PUNPCKLQDQ X9, X9
	MOVQ cr+40(FP), X10
	PUNPCKLQDQ X10, X10
	MOVQ $0x2222222222222222, AX
	MOVQ AX, X11
	PUNPCKLQDQ X11, X11
	MOVQ bits_base+48(FP), DI
	MOVQ bits_len+56(FP), CX
	TESTQ CX, CX
	JZ done

loop:
	MASK16(0, AX)
	MASK16(16, BX)
	MASK16(32, DX)
	MASK16(48, R8)
	SHLQ $16, BX
	SHLQ $32, DX
	SHLQ $48, R8
	ORQ BX, AX
	ORQ DX, AX
	ORQ R8, AX
	MOVQ AX, 0(DI)
	ADDQ $64, SI
	ADDQ $8, DI
	DECQ CX
	JNZ loop

done:
	RET
