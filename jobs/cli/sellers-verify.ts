/**
 * `npm run -s sellers:verify -- [--file content/sellers.json] [--ad-system-domain DOMAIN]`: for
 * every seller with a domain, fetch its ads.txt (then app-ads.txt) and check that it lists us
 * with the seller's seller_id and the relationship its seller_type calls for. One line per seller
 * on stdout (ok / mismatch / unreachable / skipped), a summary on stderr. Rules:
 * src/features/sellers/verify.ts, ads-txt.ts, ads-txt-fetch.ts.
 *
 * Exit status (sysexits(3), src/app/exit-codes.ts):
 *   0  every seller with a domain is authorised (or none has a domain)
 *   65 at least one mismatch (EX_DATAERR), whatever else happened; also a sellers file that is
 *      not valid sellers.json (the problems are listed)
 *   69 no mismatch, but some sites could not be reached (EX_UNAVAILABLE): run again later
 *   66 the sellers file cannot be read (EX_NOINPUT); 64 usage
 */
import { readFile } from 'node:fs/promises';
import { EX_DATAERR, EX_NOINPUT, EX_UNAVAILABLE } from '../../src/app/exit-codes.ts';
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS } from '../../src/features/sellers/ads-txt-fetch.ts';
import { domainProblem } from '../../src/features/sellers/schema.ts';
import { formatSellersIssues, parseSellersDocument, SELLERS_FILE } from '../../src/features/sellers/validate.ts';
import { adSystemDomainOf, formatReport, verifySellers } from '../../src/features/sellers/verify.ts';
import { runCli, UsageError } from './run-cli.ts';

const USAGE = {
  synopsis: 'npm run -s sellers:verify -- [--file content/sellers.json] [--ad-system-domain DOMAIN] [--timeout-ms N] [--base-url URL]',
  options: {
    file: { type: 'string' },
    'ad-system-domain': { type: 'string' },
    'timeout-ms': { type: 'string' },
    'base-url': { type: 'string' },
  },
  details: [
    `  --file              the sellers.json document to check (default ${SELLERS_FILE})`,
    '  --ad-system-domain  our domain in ads.txt records (default: the root domain of contact_email)',
    `  --timeout-ms        time limit per HTTP request (default ${DEFAULT_TIMEOUT_MS})`,
    '  --base-url          for tests: fetch <URL>/<scheme>/<domain>/ads.txt instead of <scheme>://<domain>/ads.txt',
    'Exit: 0 all authorised · 65 a mismatch (or an invalid sellers file) · 69 no mismatch but some sites unreachable · 66 file unreadable · 64 usage',
  ].join('\n'),
} as const;

/** A positive whole number of milliseconds, at most ten minutes. */
function timeoutOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_TIMEOUT_MS;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > 600_000) throw new UsageError(`--timeout-ms must be a whole number of milliseconds from 1 to 600000 (got "${text}")`);
  return value;
}

function baseUrlOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) throw new UsageError(`--base-url must be an http(s) URL such as http://127.0.0.1:8080 (got "${text}")`);
  return text;
}

if (import.meta.main) {
  process.exitCode = await runCli('sellers-verify', USAGE, async ({ values, stdout, stderr }) => {
    const timeoutMs = timeoutOf(values['timeout-ms']);
    const baseUrl = baseUrlOf(values['base-url']);
    const path = values.file ?? SELLERS_FILE;
    let input: unknown;
    try {
      input = JSON.parse(await readFile(path, 'utf8'));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === undefined) {
        stderr.write(`sellers-verify: ${path} is not valid JSON: ${(error as Error).message}\n`);
        return EX_DATAERR;
      }
      stderr.write(`sellers-verify: cannot read ${path}: ${(error as Error).message}\n`);
      return EX_NOINPUT;
    }
    const parsed = parseSellersDocument(input);
    if (!parsed.success) {
      stderr.write(`sellers-verify: ${formatSellersIssues(parsed.issues, path)}\n`);
      return EX_DATAERR;
    }
    const given = values['ad-system-domain'];
    if (given !== undefined && domainProblem(given) !== null) throw new UsageError(`--ad-system-domain: ${domainProblem(given)}`);
    const adSystemDomain = given ?? adSystemDomainOf(parsed.data);
    if (adSystemDomain === undefined) throw new UsageError(`${path} has no contact_email to take our domain from: pass --ad-system-domain`);

    stderr.write(`checking ads.txt / app-ads.txt of the sellers in ${path} for ${adSystemDomain}\n`);
    const reports = await verifySellers(parsed.data, adSystemDomain, { timeoutMs, maxBytes: DEFAULT_MAX_BYTES, baseUrl });
    for (const report of reports) stdout.write(`${formatReport(report)}\n`);
    const count = (verdict: string) => reports.filter((r) => r.verdict === verdict).length;
    const [ok, mismatch, unreachable, skipped] = [count('ok'), count('mismatch'), count('unreachable'), count('skipped')];
    stderr.write(`${ok} ok, ${mismatch} mismatch, ${unreachable} unreachable, ${skipped} skipped (no domain)\n`);
    if (mismatch > 0) return EX_DATAERR;
    if (unreachable > 0) return EX_UNAVAILABLE;
    return 0;
  });
}
