/** The command's pure parts: exit codes, messages, output formats, its help. Its flags are tested by running the program, in test/integration/jobs/cli/data-fetch.test.ts. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BASE_URL, defaultBaseUrl, describeFailure, describeRestated, describeSettlement, exitCodeFor, formatRecords, USAGE } from '../../../../jobs/cli/data-fetch.ts';
import { runCli } from '../../../../jobs/cli/run-cli.ts';
import {
  CONCURRENCY,
  DailyQuotaExceededError,
  InvalidArgumentError,
  InvalidRequestError,
  RateLimitedError,
  ServerUnavailableError,
  UnauthorizedError,
  UnexpectedResponseError,
  type DataRecord,
} from '../../../../src/client/data-client.ts';

const RECORDS: DataRecord[] = [
  { date: '2025-01-01', txn_count: 3, impr_count: 40, service_revenue: 12.5 },
  { date: '2025-01-02', txn_count: 0, impr_count: 0, service_revenue: 0 },
  { date: '2025-01-03', txn_count: 7, impr_count: 91, service_revenue: 1234567.89 },
];

describe('defaultBaseUrl', () => {
  it('is where npm start listens with the same HOST and PORT, the server\'s defaults without them', () => {
    expect(defaultBaseUrl({})).toBe('http://127.0.0.1:4321');
    expect(defaultBaseUrl({ PORT: '8080' })).toBe('http://127.0.0.1:8080');
    expect(defaultBaseUrl({ PORT: '8080', HOST: '0.0.0.0' })).toBe('http://127.0.0.1:8080');
    expect(defaultBaseUrl({ PORT: '9000', HOST: '::1' })).toBe('http://[::1]:9000');
    expect(defaultBaseUrl({ PORT: '0' })).toBe('http://127.0.0.1:4321');
    expect(defaultBaseUrl({ PORT: 'eighty' })).toBe('http://127.0.0.1:4321');
  });
});

describe('data-fetch --help', () => {
  it('shows every flag with its default in --help', async () => {
    const stdout = new PassThrough();
    let help = '';
    stdout.on('data', (chunk: Buffer) => (help += chunk.toString('utf8')));
    expect(await runCli('data-fetch', USAGE, async () => 1, { argv: ['--help'], stdout })).toBe(0);
    // A line of the help per flag (or pair of flags): `  --from, --to   what it is (default ...)`.
    const lineOf = (flag: string) => help.split('\n').find((line) => line.trim().split(/\s{2,}/)[0]!.split(', ').includes(flag)) ?? `(no line for ${flag})`;
    for (const [name, option] of Object.entries(USAGE.options)) {
      expect(lineOf(`--${name}`), name).toMatch('default' in option ? `(default ${option.default})` : /\(default[: ]|required/);
    }
    expect(lineOf('--base-url')).toContain(`(default: http://HOST:PORT as npm start listens with this environment, ${DEFAULT_BASE_URL} without them)`);
    expect(lineOf('--concurrency')).toContain(`(default ${CONCURRENCY.default})`);
    expect(lineOf('--token')).toContain('DATA_API_TOKEN');
    expect(lineOf('--cache-dir')).toContain('(default: no cache)');
  });

});

describe('data-fetch exit codes', () => {
  it('follows sysexits: usage 64, refused request 65, unavailable 69, try later 75', () => {
    expect(exitCodeFor(new InvalidArgumentError('from', 'is wrong'))).toBe(64);
    expect(exitCodeFor(new InvalidRequestError(400, 'SVC1005', 'bad', '2025-01-01 to 2025-01-31'))).toBe(65);
    expect(exitCodeFor(new ServerUnavailableError('http://x', 5, 503, undefined))).toBe(69);
    expect(exitCodeFor(new UnexpectedResponseError('http://x', 404, 'not here'))).toBe(69);
    expect(exitCodeFor(new DailyQuotaExceededError(new Date(Date.UTC(2026, 2, 21))))).toBe(75);
    expect(exitCodeFor(new RateLimitedError(5, 1000))).toBe(75);
    expect(exitCodeFor(new Error('bug'))).toBe(70);
    expect(exitCodeFor(new UnauthorizedError(401, true, 'invalid_token'))).toBe(77);
  });

  it('points at --token and DATA_API_TOKEN when the key is refused, and at --token for a malformed one', () => {
    expect(describeFailure(new UnauthorizedError(401, true, 'invalid_token', 'unauthorized', 'the API key is not valid'))).toBe(
      'the data API refused the API token (401): the API key is not valid (unauthorized, invalid_token); check --token or DATA_API_TOKEN',
    );
    expect(describeFailure(new InvalidArgumentError('token', 'must be an API key'))).toBe('--token (or DATA_API_TOKEN) must be an API key');
  });

  it('sums up which days are final and which had no record', () => {
    expect(describeSettlement('2026-11-20', [])).toBe('days up to 2026-11-20 are final; no day missing');
    expect(describeSettlement(undefined, [])).toBe('the server did not say which days are final; no day missing');
    expect(describeSettlement('2026-11-20', ['2026-11-24'])).toBe('days up to 2026-11-20 are final; 1 day without a record yet (2026-11-24)');
    const many = Array.from({ length: 8 }, (_, i) => `2026-11-${String(i + 10)}`);
    expect(describeSettlement('2026-11-20', many)).toBe('days up to 2026-11-20 are final; 8 days without a record yet (2026-11-10, 2026-11-11, 2026-11-12 ... 2026-11-17)');
  });

  it('names the days restated since they were cached, when there are any', () => {
    expect(describeRestated([])).toBeUndefined();
    expect(describeRestated(['2026-01-15'])).toBe('1 day restated by the server since cached as final, now with the new figures (2026-01-15)');
  });

  it('names flags, not client options, in messages about them', () => {
    expect(describeFailure(new InvalidArgumentError('baseUrl', 'must be an absolute http(s) URL, got "x"'))).toBe('--base-url must be an absolute http(s) URL, got "x"');
    expect(describeFailure(new DailyQuotaExceededError(new Date(Date.UTC(2026, 2, 21))))).toMatchInlineSnapshot(
      `"the daily request quota of the data API is spent; it resets at 2026-03-21T00:00:00.000Z (00:00 UTC); run again after that"`,
    );
  });
});

describe('data-fetch output', () => {
  it('writes CSV with a header and money with two decimals', () => {
    expect(formatRecords(RECORDS, 'csv')).toBe(
      'date,txn_count,impr_count,service_revenue\n2025-01-01,3,40,12.50\n2025-01-02,0,0,0.00\n2025-01-03,7,91,1234567.89\n',
    );
    expect(formatRecords([], 'csv')).toBe('date,txn_count,impr_count,service_revenue\n');
  });

  it('writes a JSON array with one record per line that parses back to the records', () => {
    const text = formatRecords(RECORDS, 'json');
    expect(text.split('\n')).toHaveLength(RECORDS.length + 3);
    expect(JSON.parse(text)).toEqual(RECORDS);
    expect(JSON.parse(formatRecords([], 'json'))).toEqual([]);
  });
});
