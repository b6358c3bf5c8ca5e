// DuckDB's side of the README's groupby tables: db-benchmark's ten groupby
// questions (its DuckDB SQL) on the CSV file Dusk reads, with 2 threads,
// the table loaded first, each question run twice, one JSON line a step.
// Needs @duckdb/node-api (1.5.6 measured):
//   npm install @duckdb/node-api && node duckdb-groupby.mjs FILE.csv [DB_FILE [MEMORY_LIMIT]]
// A database file and a memory limit (say 12GB) let a table larger than
// memory spill, as DuckDB's own beyond-memory runs do. QUESTIONS=q1,q3
// in the environment runs those alone.
import { DuckDBInstance } from '@duckdb/node-api';

const [file, dbFile = ':memory:', memoryLimit] = process.argv.slice(2);
const options = { threads: '2' };
if (memoryLimit) options.memory_limit = memoryLimit;
const db = await DuckDBInstance.create(dbFile, options);
const c = await db.connect();
const time = async (sql) => { const s = performance.now(); await c.run(sql); return (performance.now() - s) / 1000; };
const questions = {
  q1: 'SELECT id1, sum(v1) AS v1 FROM x GROUP BY id1',
  q2: 'SELECT id1, id2, sum(v1) AS v1 FROM x GROUP BY id1, id2',
  q3: 'SELECT id3, sum(v1) AS v1, avg(v3) AS v3 FROM x GROUP BY id3',
  q4: 'SELECT id4, avg(v1) AS v1, avg(v2) AS v2, avg(v3) AS v3 FROM x GROUP BY id4',
  q5: 'SELECT id6, sum(v1) AS v1, sum(v2) AS v2, sum(v3) AS v3 FROM x GROUP BY id6',
  q6: 'SELECT id4, id5, quantile_cont(v3, 0.5) AS median_v3, stddev(v3) AS sd_v3 FROM x GROUP BY id4, id5',
  q7: 'SELECT id3, max(v1) - min(v2) AS range_v1_v2 FROM x GROUP BY id3',
  q8: 'SELECT id6, v3 AS largest2_v3 FROM (SELECT id6, v3, row_number() OVER (PARTITION BY id6 ORDER BY v3 DESC) AS order_v3 FROM x WHERE v3 IS NOT NULL) WHERE order_v3 <= 2',
  q9: 'SELECT id2, id4, pow(corr(v1, v2), 2) AS r2 FROM x GROUP BY id2, id4',
  q10: 'SELECT id1, id2, id3, id4, id5, id6, sum(v3) AS v3, count(*) AS count FROM x GROUP BY id1, id2, id3, id4, id5, id6',
};
const load = await time(`CREATE OR REPLACE TABLE x AS SELECT * FROM read_csv('${file}')`);
console.log(JSON.stringify({ engine: 'duckdb', question: 'load', seconds: [load] }));
const only = process.env.QUESTIONS?.split(',');
for (const [q, sql] of Object.entries(questions)) {
  if (only && !only.includes(q)) continue;
  const secs = [];
  for (let run = 0; run < 2; run++) {
    secs.push(await time(`CREATE OR REPLACE TABLE ans AS ${sql}`));
    await c.run('DROP TABLE ans');
  }
  console.log(JSON.stringify({ engine: 'duckdb', question: q, seconds: secs }));
}
