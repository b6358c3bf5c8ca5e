// DuckDB's side of `dusk bench tpch --scan`: each kind of lineitem column
// read alone from the same Parquet files and summed (a date's or string's
// maximum), with 2 threads, twice, one JSON line a column: seconds and the
// column's compressed bytes in the files a second. Needs @duckdb/node-api:
//   npm install @duckdb/node-api (1.5.6 measured) && node scan.mjs DIR
import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync } from 'node:fs';

const dir = process.argv[2];
const files = existsSync(`${dir}/lineitem.parquet`) ? `${dir}/lineitem.parquet` : `${dir}/lineitem/*.parquet`;
const columns = [
  ['l_orderkey', 'sum'], ['l_partkey', 'sum'], ['l_extendedprice', 'sum'], ['l_discount', 'sum'],
  ['l_shipdate', 'max'], ['l_returnflag', 'max'], ['l_comment', 'max'],
];
const db = await DuckDBInstance.create(':memory:', { threads: '2' });
const c = await db.connect();
const bytes = async (col) => {
  const r = await c.runAndReadAll(`SELECT sum(total_compressed_size)::BIGINT FROM parquet_metadata('${files}') WHERE path_in_schema = '${col}'`);
  return Number(r.getRows()[0][0]);
};
for (const [col, agg] of columns) {
  const size = await bytes(col);
  const seconds = [];
  for (let run = 0; run < 2; run++) {
    const s = performance.now();
    await c.runAndReadAll(`SELECT ${agg}(${col}) FROM read_parquet('${files}')`);
    seconds.push((performance.now() - s) / 1000);
  }
  console.log(JSON.stringify({ engine: 'duckdb', question: `scan ${col}`, seconds, bytes_per_sec: seconds.map((s) => size / s) }));
}
