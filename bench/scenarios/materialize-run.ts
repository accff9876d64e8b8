/**
 * Child process of the materialization scenario: `materialize(from, to)` on a database file,
 * `repeat` times on one connection, printing each call's milliseconds as JSON. The connection is
 * opened (and the schema checked) before the first timed call, as in the long-running server.
 *
 *   node bench/scenarios/materialize-run.ts <database file> <from> <to> [repeat]
 */
import { materialize } from '../../src/features/stats/materialize.server.ts';
import { createDb } from '../../src/db/create-db.ts';

const [file, from, to, repeat = '1'] = process.argv.slice(2);
if (!file || !from || !to) {
  console.error('usage: node bench/scenarios/materialize-run.ts <database file> <from> <to> [repeat]');
  process.exit(2);
}
const handle = createDb(file);
await handle.ping();
const ms: number[] = [];
for (let i = 0; i < Number(repeat); i++) {
  const started = performance.now();
  const result = await materialize({ db: handle }, from, to);
  ms.push(performance.now() - started);
  if (result.error) {
    console.error(`materialize failed after ${result.days} days: ${result.error.message}`);
    process.exitCode = 1;
    break;
  }
}
await handle.close();
console.log(JSON.stringify({ ms }));
