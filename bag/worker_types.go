package bag

// The element types every worker serves without a RegisterType call: those
// of JSON records, text lines, plucked fields and plain numbers, so that a
// stock `dusk worker` runs the bags most programs build.
func init() {
	RegisterType[map[string]any]()
	RegisterComparable[any]()
	RegisterType[string]()
	RegisterType[int]()
	RegisterType[int64]()
	RegisterType[float64]()
	RegisterType[bool]()
}
