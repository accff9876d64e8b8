/**
 * Every metric family the server exports, declared once: name, help, type, label names and, for
 * histograms, buckets. The registry (registry.server.ts) is built from this list and nothing
 * else, so a name used anywhere but declared here is an error (thrown by the meter, caught by
 * test/unit/features/metrics/catalog.test.ts), and the operators' guide ("Monitoring") and the
 * dashboard read the same names.
 *
 * Naming follows https://prometheus.io/docs/practices/naming/: base units in the name
 * (`_seconds`, `_bytes`), counters end in `_total`, timestamps are `_timestamp_seconds`. Labels
 * take values from small fixed sets (route table names, status classes, outcomes, error codes
 * from src/lib/http-error.ts), never from request text, so the number of series stays bounded.
 */
export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  labels: readonly string[];
  /** Histogram bucket upper bounds, ascending, in the family's unit. */
  buckets?: readonly number[];
}

/** Request and query latencies: 1 ms to 10 s, the range between a cached answer and a deadline. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
/** Time to the first byte of an assistant's reply: the LLM's spans seconds. */
const FIRST_BYTE_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15] as const;

const family = (name: string, type: MetricType, help: string, labels: readonly string[] = [], buckets?: readonly number[]): MetricFamily =>
  buckets === undefined ? { name, help, type, labels } : { name, help, type, labels, buckets };

export const CATALOG: readonly MetricFamily[] = [
  // Requests, from the edge's RequestObservation (src/server/observation.ts).
  family('http_requests_total', 'counter', 'Finished requests by route table name, method and status class.', ['route', 'method', 'status_class']),
  family('http_request_duration_seconds', 'histogram', 'Time from arrival to the last byte handed to the socket.', ['route', 'method', 'status_class'], LATENCY_BUCKETS),
  family('http_response_body_bytes_total', 'counter', 'Body bytes written to clients, by route.', ['route']),
  family('http_response_cache_requests_total', 'counter', 'Cacheable GET requests by response cache result (hit, miss).', ['result']),
  family('http_response_cache_bytes', 'gauge', 'Bytes the response cache holds, as charged against RESPONSE_CACHE_MAX_BYTES.'),
  family('http_response_cache_entries', 'gauge', 'Responses the response cache holds.'),
  family('http_static_cache_requests_total', 'counter', 'Prebuilt files served, by whether the hot cache held the bytes (hit) or they were read from disk (miss).', ['result']),
  family('http_static_cache_bytes', 'gauge', 'Bytes the static hot cache holds, as charged against STATIC_CACHE_MAX_BYTES.'),
  family('ratelimit_decisions_total', 'counter', 'Rate-limit decisions by rate class and outcome (allowed, refused, degraded: allowed by the in-process fallback).', ['class', 'outcome']),
  family('ratelimit_degraded', 'gauge', '1 while rate limits are enforced per instance because Redis is failing, else 0.'),
  // Database and Redis.
  family('db_errors_total', 'counter', 'Database statements that failed (any cause: unreachable, locked, timed out, refused).', ['engine']),
  family('redis_errors_total', 'counter', 'Redis commands of the rate limiter that failed or timed out.'),
  // Contact.
  family('contact_submissions_stored_total', 'counter', 'Contact submissions stored (a replayed Idempotency-Key is not counted again).'),
  family('contact_submissions_refused_total', 'counter', 'Contact submissions refused, by reason (the error code answered), and spam kept undelivered, by kind (honeypot, proof_of_work, heuristic).', ['reason']),
  family('contact_outbox_pending', 'gauge', 'Stored submissions waiting for delivery (read from the database at scrape time).'),
  family('contact_outbox_oldest_pending_age_seconds', 'gauge', 'Age of the oldest submission waiting for delivery; 0 when none waits.'),
  family('contact_delivery_attempts_total', 'counter', 'Delivery attempts by channel (webhook, email) and outcome (delivered, failed).', ['channel', 'outcome']),
  family('contact_deliveries_failed_total', 'counter', 'Deliveries given up for good (the failed state), by channel.', ['channel']),
  // Data.
  family('stats_last_materialization_timestamp_seconds', 'gauge', 'When daily stats were last materialized (the newest materialized_at), Unix time.'),
  family('stats_last_settled_day_timestamp_seconds', 'gauge', 'Start (00:00 UTC) of the newest settled day that has a materialized record, Unix time.'),
  family('stats_events_imported_total', 'counter', 'Raw events inserted by imports run in this process.'),
  family('stats_query_duration_seconds', 'histogram', 'Time of the data API query for a range of daily stats.', [], LATENCY_BUCKETS),
  // Chat.
  family('chat_replies_total', 'counter', 'Chat replies started, by assistant (built-in, llm).', ['assistant']),
  family('chat_provider_failures_total', 'counter', 'LLM provider calls that failed (the built-in assistant answered instead).'),
  family('chat_first_byte_seconds', 'histogram', 'Time from the chat request to the first byte of the reply, by assistant.', ['assistant'], FIRST_BYTE_BUCKETS),
  // Backups (the backup feature exports it through the Meter).
  family('backup_last_success_timestamp_seconds', 'gauge', 'When the last scheduled backup succeeded, Unix time.'),
  // The exposition itself.
  family('metrics_collect_errors_total', 'counter', 'Scrape-time readings that failed (the gauge keeps its last value), by collector.', ['collector']),
];

/** The catalog's families by name. */
export function catalogByName(families: readonly MetricFamily[] = CATALOG): Map<string, MetricFamily> {
  const byName = new Map<string, MetricFamily>();
  for (const entry of families) {
    if (byName.has(entry.name)) throw new Error(`metric ${entry.name} is declared twice`);
    byName.set(entry.name, entry);
  }
  return byName;
}
