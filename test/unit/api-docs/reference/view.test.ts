/**
 * What /docs/api prints, computed from the document: every operation with its parameters, body
 * fields, responses and examples; safe HTML from the descriptions; runnable code samples.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { curlSample, fetchSample, shellQuote } from '../../../../src/lib/openapi/code-samples.ts';
import { createOpenApiDocument, OPERATION_IDS } from '../../../../src/api-docs/document.ts';
import { inlineMarkdown, paragraphs } from '../../../../src/api-docs/reference/markdown.ts';
import { describe as describeSchema, typeLabel } from '../../../../src/api-docs/reference/schema-text.ts';
import { referenceView } from '../../../../src/api-docs/reference/view.ts';

const view = referenceView(createOpenApiDocument({ siteName: 'Meridian Ad Exchange', siteUrl: 'https://meridian-exchange.example' }));
const operations = view.tags.flatMap((tag) => tag.operations);
const byId = (id: string) => {
  const op = operations.find((o) => o.id === id);
  if (!op) throw new Error(`no operation ${id}`);
  return op;
};

describe('the API reference view', () => {
  it('lists every operation once, grouped by tag in document order', () => {
    expect(operations.map((o) => o.id).sort()).toEqual([...OPERATION_IDS].sort());
    expect(view.tags.map((t) => t.name)).toEqual(['Site', 'Community data', 'Operations']);
    expect(view.tags[0]!.operations.map((o) => `${o.method} ${o.path}`)).toEqual(['GET /api/news', 'POST /api/contact', 'GET /api/contact/challenge', 'POST /api/chat', 'GET /sellers.json']);
  });

  it('gives the request body fields with type, required flag and description, nested ones by path', () => {
    expect(byId('submitContact').requestBody?.fields.map((f) => [f.name, f.type.text, f.required])).toEqual([
      ['name', 'string', true],
      ['job_title', 'string', false],
      ['work_email', 'string (email)', true],
      ['priority', 'string', true],
      ['message', 'string', false],
      ['altcha', 'string', false],
    ]);
    const chat = byId('sendChatMessage').requestBody!;
    expect(chat.fields.map((f) => f.name)).toEqual(['messages', 'messages[].role', 'messages[].content']);
    expect(chat.fields[0]!.type).toEqual({ text: 'array of ChatMessage', ref: 'ChatMessage' });
    expect(chat.fields[1]!.description).toContain('One of `user`, `assistant`.');
  });

  it('gives each response its status, reason, headers, codes and example', () => {
    const stats = byId('getDailyStats');
    expect(stats.responses.map((r) => `${r.status} ${r.reason}`)).toEqual([
      '200 OK',
      '304 Not Modified',
      '400 Bad Request',
      '401 Unauthorized',
      '405 Method Not Allowed',
      '429 Too Many Requests',
      '431 Request Header Fields Too Large',
      '503 Service Unavailable',
    ]);
    const refused = stats.responses.find((r) => r.status === '429')!;
    expect(refused.codes).toEqual(['SVC1010']);
    expect(refused.headers.map((h) => h.name)).toEqual(expect.arrayContaining(['X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Daily-Quota-Remaining', 'Retry-After']));
    expect(refused.body?.type).toEqual({ text: 'DataError', ref: 'DataError' });
    expect(JSON.parse(stats.responses[0]!.body!.examples[0]!.text)).toMatchObject({ status: 'Success' });
    expect(stats.parameters.map((p) => [p.name, p.in, p.type.text, p.required])).toEqual([
      ['startDate', 'query', 'string (date)', true],
      ['endDate', 'query', 'string (date)', true],
      ['If-None-Match', 'header', 'string', false],
    ]);
  });

  it('shows a curl command for every public operation', () => {
    for (const op of operations.filter((o) => !['getLiveness', 'getReadiness'].includes(o.id))) {
      expect(op.samples.find((s) => s.label === 'curl')?.source, op.id).toMatch(/^curl /);
    }
  });

  it('lists the component schemas with their fields', () => {
    const record = view.schemas.find((s) => s.name === 'DataRecord')!;
    expect(record.anchor).toBe('schema-DataRecord');
    expect(record.fields.map((f) => `${f.name}: ${f.type.text}`)).toEqual(['date: string (date)', 'txn_count: integer', 'impr_count: integer', 'service_revenue: number']);
  });
});

describe('rendering descriptions', () => {
  it('escapes HTML and keeps only code and strong', () => {
    expect(inlineMarkdown('Use `a<b>` and **bold** <script>alert(1)</script> & "q"')).toBe(
      'Use <code>a&lt;b&gt;</code> and <strong>bold</strong> &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;',
    );
    expect(paragraphs('One.\n\nTwo.\n')).toEqual(['One.', 'Two.']);
  });

  it('names types the way a reader says them, and adds what the schema constrains', () => {
    expect(typeLabel({ anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }] })).toEqual({ text: 'string (uri) or null' });
    expect(typeLabel({ type: 'array', items: { $ref: '#/components/schemas/Seller' } })).toEqual({ text: 'array of Seller', ref: 'Seller' });
    expect(describeSchema({ type: 'string', minLength: 1, maxLength: 200, description: 'Who is writing.' })).toBe('Who is writing. 1 to 200 characters.');
    expect(describeSchema({ type: 'string', maxLength: 200, description: 'At most 200 characters.' })).toBe('At most 200 characters.');
    expect(describeSchema({ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER })).toBe('At least 0.');
  });
});

describe('code samples', () => {
  it('quote for a POSIX shell, apostrophes included', () => {
    const quoted = shellQuote(`it's {"a":"b"}`);
    expect(execFileSync('sh', ['-c', `printf %s ${quoted}`], { encoding: 'utf8' })).toBe(`it's {"a":"b"}`);
  });

  it('build a curl POST with a JSON body and a fetch call with the same request', () => {
    const request = { method: 'POST' as const, url: 'https://x.example/api/contact', body: { name: "O'Brien" } };
    expect(curlSample(request)).toMatchInlineSnapshot(`
      "curl -X POST 'https://x.example/api/contact' \\
        -H 'Content-Type: application/json' \\
        --data '{"name":"O'\\''Brien"}'"
    `);
    expect(fetchSample(request)).toMatchInlineSnapshot(`
      "const response = await fetch("https://x.example/api/contact", {
        method: 'POST',
        headers: {"Content-Type":"application/json"},
        body: JSON.stringify({
          "name": "O'Brien"
        }),
      });
      console.log(response.status, await response.json());"
    `);
  });
});
