/**
 * The baselines: the same work with nothing of ours in the way, on plain node:http.
 *
 * - ceiling: writes pre-serialised bytes, the exact body, status and Content-Type our server
 *   answered for that URL (captured once before the runs). Nothing can serve those bytes faster
 *   from Node, so "x ceiling" is how much of Node's own speed our edge keeps.
 * - query: runs the data endpoint's SQL (the statement kysely sends for `readDailyStats`, which
 *   run.ts captures and passes in) as a better-sqlite3 prepared statement on the same database
 *   file, and JSON.stringify.
 *
 *   node bench/baselines.ts ceiling <responses.json>
 *   node bench/baselines.ts query <database file> <sql>
 *
 * Prints `{"msg":"listening","url":...}` like the real server, on a free port of 127.0.0.1.
 */
import { readFileSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';

/** One captured response of our server; the body is base64. */
export interface CapturedResponse {
  path: string;
  status: number;
  contentType: string;
  body: string;
  /**
   * The other headers our server sent that any client would get (representation, security, CORS),
   * for the peer; per-request and framing ones (Date, X-Request-Id, rate-limit state, lengths) left out.
   */
  headers?: Record<string, string>;
}

function ceiling(responsesFile: string): RequestListener {
  const captured = JSON.parse(readFileSync(responsesFile, 'utf8')) as CapturedResponse[];
  const byPath = new Map(captured.map((r) => [r.path, { status: r.status, contentType: r.contentType, body: Buffer.from(r.body, 'base64') }]));
  return (req, res) => {
    const found = byPath.get(req.url ?? '');
    if (!found) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.writeHead(found.status, { 'content-type': found.contentType, 'content-length': found.body.length });
    res.end(found.body);
  };
}

interface DayRow {
  day: string;
  txn_count: number;
  impr_count: number;
  revenue_minor: number;
}

function query(databaseFile: string, sql: string): RequestListener {
  const statement = new Database(databaseFile, { readonly: true }).prepare<[string, string], DayRow>(sql);
  return (req, res) => {
    const params = new URL(req.url ?? '/', 'http://baseline.invalid').searchParams;
    const rows = statement.all(params.get('startDate') ?? '', params.get('endDate') ?? '');
    const body = JSON.stringify({
      status: 'Success',
      data: rows.map((r) => ({ date: r.day, txn_count: r.txn_count, impr_count: r.impr_count, service_revenue: r.revenue_minor / 100 })),
    });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
}

if (import.meta.main) {
  const [kind, file, sql] = process.argv.slice(2);
  if (!file || (kind !== 'ceiling' && !(kind === 'query' && sql))) {
    console.error('usage: node bench/baselines.ts ceiling <responses.json> | query <database file> <sql>');
    process.exit(2);
  }
  const server = createServer({ keepAliveTimeout: 5_000 }, kind === 'ceiling' ? ceiling(file) : query(file, sql!));
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    console.log(JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${port}`, baseline: kind }));
  });
  process.on('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
