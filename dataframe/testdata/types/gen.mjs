// Writes dataframe/testdata/types: a Parquet file written by DuckDB, and
// DuckDB's reading of it as the expected values;
//   duckdb.parquet  written by DuckDB 1.5.6 (@duckdb/node-api)
// and DuckDB's readings of arrowgo.parquet (written beforehand by
// arrowgo_gen.go.txt) and of Impala's alltypes_plain.snappy.parquet (INT96
// timestamps, from io/parquet/testdata).
// Run: npm install @duckdb/node-api@1.5.6-r.1 && node gen.mjs OUTDIR
import { DuckDBInstance } from '@duckdb/node-api';
const out = process.argv[2];
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
await c.run(`set TimeZone='UTC'`);
await c.run(`copy (
  select i::integer as i,
         (date '1992-01-01' + ((i * 37) % 2500)::integer)::date as d,
         (timestamptz '1995-03-15 00:00:00+00' + to_microseconds(i * 3600123457)) as ts,
         (timestamp_ns '2001-09-09 01:46:40' + to_microseconds(i * 86399999)) as ts_ns,
         ((i * 104729) % 10000000 / 100.0 - 20000)::decimal(15,2) as price,
         ((i * 7919) % 1000000000000 / 10000.0)::decimal(30,4) as big,
         (i % 100 - 50)::tinyint as tiny,
         (i * 3)::smallint as small,
         (i % 250)::utinyint as utiny,
         (i / 8.0)::float as f32,
         case when i % 7 = 3 then null else 'row' || i end as s
  from range(1, 301) t(i)
  union all select null, null, null, null, null, null, null, null, null, null, null
) to '${out}/duckdb.parquet' (format parquet)`);

// DuckDB's reading of each file, as text: the expected values.
for (const [f, path] of [['duckdb', `${out}/duckdb.parquet`], ['arrowgo', `${out}/arrowgo.parquet`], ['impala', `${out}/../../../io/parquet/testdata/alltypes_plain.snappy.parquet`]]) {
  await c.run(`copy (select * from read_parquet('${path}')) to '${out}/${f}.expected.csv' (header, dateformat '%Y-%m-%d', timestampformat '%Y-%m-%dT%H:%M:%S.%n')`);
  const r = await c.runAndReadAll(`select name, type, logical_type, converted_type from parquet_schema('${path}')`);
  console.log(f, r.getRows());
}
