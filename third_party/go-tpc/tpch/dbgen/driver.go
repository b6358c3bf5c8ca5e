package dbgen

import (
	"fmt"
)

type Table int
type dssHuge int64
type long int64

var (
	scale dssHuge
)

type tDef struct {
	name    string
	comment string
	base    dssHuge
	loader  Loader
	genSeed func(Table, dssHuge)
	child   Table
	vTotal  dssHuge
}

var tDefs []tDef

func genTbl(tnum Table, start, count dssHuge) error {
	loader := tDefs[tnum].loader
	defer loader.Flush()

	for i := start; i < start+count; i++ {
		rowStart(tnum)
		switch tnum {
		case TLine:
			fallthrough
		case TOrder:
			fallthrough
		case TOrderLine:
			order := makeOrder(i)
			if err := loader.Load(order); err != nil {
				return err
			}
		case TSupp:
			supp := makeSupp(i)
			if err := loader.Load(supp); err != nil {
				return err
			}
		case TCust:
			cust := makeCust(i)
			if err := loader.Load(cust); err != nil {
				return err
			}
		case TPsupp:
			fallthrough
		case TPart:
			fallthrough
		case TPartPsupp:
			part := makePart(i)
			if err := loader.Load(part); err != nil {
				return err
			}
		case TNation:
			nation := makeNation(i)
			if err := loader.Load(nation); err != nil {
				return err
			}
		case TRegion:
			region := makeRegion(i)
			if err := loader.Load(region); err != nil {
				return err
			}
		}
		rowStop(tnum)
	}
	return nil
}

func initTDefs() {
	tDefs = []tDef{
		{"part.tbl", "part table", 200000, nil, sdPart, TPsupp, 0},
		{"partsupp.tbl", "partsupplier table", 200000, nil, sdPsupp, TNone, 0},
		{"supplier.tbl", "suppliers table", 10000, nil, sdSupp, TNone, 0},
		{"customer.tbl", "customers table", 150000, nil, sdCust, TNone, 0},
		{"orders.tbl", "order table", 150000 * ordersPerCust, nil, sdOrder, TLine, 0},
		{"lineitem.tbl", "lineitem table", 150000 * ordersPerCust, nil, sdLineItem, TNone, 0},
		{"orders.tbl", "orders/lineitem tables", 150000 * ordersPerCust, newOrderLineLoader(), sdOrder, TLine, 0},
		{"part.tbl", "part/partsupplier tables", 200000, newPartPsuppLoader(), sdPart, TPsupp, 0},
		{"nation.tbl", "nation table", dssHuge(nations.count), nil, sdNull, TNone, 0},
		{"region.tbl", "region table", dssHuge(regions.count), nil, sdNull, TNone, 0},
	}
}

func InitDbGen(sc int64) { initDbGen(dssHuge(sc), 1000) }

// InitDbGenScale prepares the generator for scale factor sf, which may be
// below 1 (0.01, 0.1): as the official dbgen does (driver.c, flt_scale <
// MIN_SCALE), the scale is then 1 and the scalable tables' base counts
// shrink by sf, in thousandths, to one row at least. (Dusk's patch.)
func InitDbGenScale(sf float64) {
	if sf >= 1 {
		InitDbGen(int64(sf))
		return
	}
	initDbGen(1, dssHuge(1000*sf))
}

func initDbGen(sc, perMille dssHuge) {
	scale = sc
	initSeeds()
	initDists()
	initTextPool()

	initTDefs()
	if perMille < 1000 {
		for i := TPart; i < TNation; i++ {
			tDefs[i].base = max(perMille*tDefs[i].base/1000, 1)
		}
	}
	initOrder()
	initLineItem()
}

func DbGen(loaders map[Table]Loader, tables []Table) error {
	for table, loader := range loaders {
		tDefs[table].loader = loader
	}

	for _, i := range tables {
		rowCnt := tDefs[i].base
		if i < TNation {
			rowCnt *= scale
		}
		if err := genTbl(i, 1, rowCnt); err != nil {
			return fmt.Errorf("fail to generate %s, err: %v", tDefs[i].name, err)
		}
	}
	return nil
}
