// DuckDB's side of the README's TPC-H table: the same Parquet files, the
// same 22 queries (queries.sql, the official text with its validation
// parameters), 2 threads, each query run twice; once straight from the
// files and once on the tables loaded into memory. Needs @duckdb/node-api:
//   npm install @duckdb/node-api (1.5.6 measured) && node run.mjs DIR
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync, existsSync } from 'node:fs';

const dir = process.argv[2];
const tables = ['lineitem', 'orders', 'partsupp', 'part', 'customer', 'supplier', 'nation', 'region'];
const queries = readFileSync(new URL('queries.sql', import.meta.url), 'utf8')
  .split(/^-- (q\d+)\n/m).slice(1);
const db = await DuckDBInstance.create(process.argv[3] ?? ':memory:', { threads: '2' });
const c = await db.connect();
const source = (t) => existsSync(`${dir}/${t}.parquet`) ? `'${dir}/${t}.parquet'` : `'${dir}/${t}/*.parquet'`;
const time = async (sql) => { const s = performance.now(); await c.runAndReadAll(sql); return (performance.now() - s) / 1000; };
async function suite(label) {
  const totals = [0, 0];
  for (let i = 0; i < queries.length; i += 2) {
    const secs = [await time(queries[i + 1]), await time(queries[i + 1])];
    totals[0] += secs[0]; totals[1] += secs[1];
    console.log(JSON.stringify({ engine: 'duckdb', mode: label, question: queries[i], seconds: secs }));
  }
  console.log(JSON.stringify({ engine: 'duckdb', mode: label, question: 'total', seconds: totals }));
}
for (const t of tables) await c.run(`create or replace view ${t} as select * from read_parquet(${source(t)})`);
await suite('files');
const s = performance.now();
for (const t of tables) { await c.run(`drop view ${t}`); await c.run(`create table ${t} as select * from read_parquet(${source(t)})`); }
console.log(JSON.stringify({ engine: 'duckdb', mode: 'loaded', question: 'load', seconds: [(performance.now() - s) / 1000] }));
await suite('loaded');
