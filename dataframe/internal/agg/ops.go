package agg

const (
	OpAggPartial = "df-agg-partial"
	OpAggCombine = "df-agg-combine"
	OpAggFinal   = "df-agg-final"
	OpAggUnpack  = "df-agg-unpack"
	OpGroupRows  = "df-group-rows"
)
