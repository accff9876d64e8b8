/**
 * Copy-paste examples for each operation, published in the document as `x-codeSamples` (the
 * vendor extension Redoc and other renderers read) and shown on /docs/api: a curl command and
 * the same call with `fetch`. Pure string building from the operation's example values.
 */

export interface CodeSample {
  /** `Shell` or `JavaScript`, as in Redoc's x-codeSamples. */
  lang: 'Shell' | 'JavaScript';
  /** Tab label. */
  label: string;
  source: string;
}

export interface SampleRequest {
  method: 'GET' | 'POST';
  /** Absolute URL, query included. */
  url: string;
  /** Request headers to show (Content-Type is added for a JSON body). */
  headers?: Record<string, string>;
  /** JSON body. */
  body?: unknown;
  /** The answer is a text stream: curl gets -N, fetch reads the body as it arrives. */
  streamed?: boolean;
  /** Show the response headers (-i): the rate-limit fields are part of the answer. */
  includeHeaders?: boolean;
}

/** POSIX shell single-quoting: 'it'\''s'. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

export function curlSample(request: SampleRequest): string {
  const lines: string[] = [];
  const flags = [request.includeHeaders ? '-i' : '', request.streamed ? '-N' : ''].filter(Boolean).join(' ');
  lines.push(`curl ${flags ? `${flags} ` : ''}${request.method === 'GET' ? '' : `-X ${request.method} `}${shellQuote(request.url)}`);
  const headers = { ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...request.headers };
  for (const [name, value] of Object.entries(headers)) lines.push(`  -H ${shellQuote(`${name}: ${value}`)}`);
  if (request.body !== undefined) lines.push(`  --data ${shellQuote(JSON.stringify(request.body))}`);
  return lines.join(' \\\n');
}

export function fetchSample(request: SampleRequest): string {
  const headers = { ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...request.headers };
  const init: string[] = [];
  if (request.method !== 'GET') init.push(`  method: '${request.method}',`);
  if (Object.keys(headers).length > 0) init.push(`  headers: ${JSON.stringify(headers)},`);
  if (request.body !== undefined) init.push(`  body: JSON.stringify(${JSON.stringify(request.body, null, 2).replaceAll('\n', '\n  ')}),`);
  const call = init.length > 0 ? `await fetch(${JSON.stringify(request.url)}, {\n${init.join('\n')}\n})` : `await fetch(${JSON.stringify(request.url)})`;
  if (request.streamed) {
    return [
      `const response = ${call};`,
      `if (!response.ok) throw new Error((await response.json()).detail);`,
      `const decoder = new TextDecoder();`,
      `for await (const chunk of response.body) console.log(decoder.decode(chunk, { stream: true }));`,
    ].join('\n');
  }
  return [`const response = ${call};`, `console.log(response.status, await response.json());`].join('\n');
}

export function codeSamples(request: SampleRequest): CodeSample[] {
  return [
    { lang: 'Shell', label: 'curl', source: curlSample(request) },
    { lang: 'JavaScript', label: 'fetch', source: fetchSample(request) },
  ];
}
