package exchange

const (
	OpConcat     = "df-concat"
	OpHashSplit  = "df-hash-split"
	OpDedup      = "df-dedup"
	OpSlices     = "df-slices"
	OpNbytes     = "df-nbytes"
	OpJoin       = "df-join"
	OpJoinBuild  = "df-join-build"
	OpJoinRead   = "df-join-read"
	OpJoinScan   = "df-join-scan"
	OpJoinFilter = "df-join-filter"
	OpJoinMarks  = "df-join-marks"
	OpJoinMarked = "df-join-marked"
	OpSample     = "df-sort-sample"
	OpBounds     = "df-sort-bounds"
	OpRangeSplit = "df-range-split"
	OpSortRows   = "df-sort-rows"
	OpLoc        = "df-loc"
	OpTop        = "df-top"
)
