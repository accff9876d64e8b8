/**
 * The published OpenAPI document: valid OpenAPI 3.1 by a maintained parser, and complete with
 * respect to docs/interface.md (every operation, section 5 status and section 6 header), with
 * examples that satisfy their own schemas.
 */
import { compileErrors, dereference, validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { CHAT_LIMITS } from '../../../src/features/chat/chat-request.ts';
import { PRIORITIES } from '../../../src/features/contact/contact-payload.ts';
import { API_VERSION, createOpenApiDocument, OPERATION_IDS } from '../../../src/api-docs/document.ts';

const SITE = 'https://meridian-exchange.example';
const NAME = 'Meridian Ad Exchange';
const document = createOpenApiDocument({ siteName: NAME, siteUrl: SITE });

// A loose view of the JSON for assertions.
type Json = Record<string, any>; // any: these tests walk arbitrary JSON and let the assertions judge it
const doc = JSON.parse(JSON.stringify(document)) as Json;

function operation(method: string, path: string): Json {
  const op = doc['paths']?.[path]?.[method] as Json | undefined;
  if (!op) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
  return op;
}

function schemaOf(ref: Json): Json {
  const name = String(ref['$ref'] ?? '').split('/').at(-1);
  return name ? (doc['components']['schemas'][name] as Json) : ref;
}

const SITE_OPERATIONS = [
  ['get', '/api/news', 'listNews'],
  ['post', '/api/contact', 'submitContact'],
  ['post', '/api/chat', 'sendChatMessage'],
  ['get', '/sellers.json', 'getSellersJson'],
] as const;
const DATA_OPERATION = ['get', '/api/v1/public/data', 'getDailyStats'] as const;

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 according to @readme/openapi-parser, without warnings', async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(result.warnings).toEqual([]);
    expect(doc['openapi']).toBe('3.1.0');
  });

  it('carries version 1.0.0 and two servers, the site and the data interface, on the site URL', () => {
    expect(doc['info']['version']).toBe('1.0.0');
    expect(API_VERSION).toBe('1.0.0');
    const servers = doc['servers'] as Json[];
    expect(servers.map((s) => s['url'])).toEqual([SITE, SITE]);
    expect(servers[0]!['description']).toMatch(/^Site interface/);
    expect(servers[1]!['description']).toMatch(/^Community data interface/);
    expect(doc['paths']['/api/v1/public/data']['servers']).toEqual([servers[1]]);
    expect(doc['paths']['/api/news']['servers']).toEqual([servers[0]]);
  });

  it('puts the data interface on its own origin when one is given', () => {
    const split = createOpenApiDocument({ siteName: NAME, siteUrl: SITE, dataUrl: 'https://data.meridian-exchange.example/ignored-path' });
    expect(split.servers?.map((s) => s.url)).toEqual([SITE, 'https://data.meridian-exchange.example']);
  });

  it('names every operation of the spec with its method and path, and nothing twice', () => {
    for (const [method, path, id] of [...SITE_OPERATIONS, DATA_OPERATION]) expect(operation(method, path)['operationId']).toBe(id);
    const ids = Object.values(doc['paths'] as Json).flatMap((item) => Object.values(item as Json).map((op) => (op as Json)['operationId']).filter(Boolean));
    expect(ids.sort()).toEqual([...OPERATION_IDS].sort());
  });

  it('requires startDate and endDate as YYYY-MM-DD dates', () => {
    const parameters = operation('get', '/api/v1/public/data')['parameters'] as Json[];
    for (const name of ['startDate', 'endDate']) {
      const parameter = parameters.find((p) => p['name'] === name)!;
      expect(parameter).toMatchObject({ in: 'query', required: true, schema: { type: 'string', format: 'date' } });
      const pattern = new RegExp(parameter['schema']['pattern'] as string);
      expect(pattern.test('2026-07-01')).toBe(true);
      expect(pattern.test('01/07/2026')).toBe(false);
    }
  });

  it('describes the request bodies from the zod schemas that validate them', () => {
    const contact = operation('post', '/api/contact')['requestBody'] as Json;
    expect(contact['required']).toBe(true);
    const payload = schemaOf(contact['content']['application/json']['schema'] as Json);
    expect(payload['required']).toEqual(['name', 'work_email', 'priority']);
    expect(payload['properties']['priority']['enum']).toEqual([...PRIORITIES]);
    expect(payload['properties']['work_email']['format']).toBe('email');

    const chat = operation('post', '/api/chat')['requestBody'] as Json;
    const request = schemaOf(chat['content']['application/json']['schema'] as Json);
    expect(request['properties']['messages']['maxItems']).toBe(CHAT_LIMITS.maxMessages);
    expect(schemaOf(request['properties']['messages']['items'] as Json)['properties']['role']['enum']).toEqual(['user', 'assistant']);
  });

  it('answers each success with the spec media type and schema', () => {
    const body = (method: string, path: string, type: string) => operation(method, path)['responses']['200']['content'][type] as Json;
    expect(body('get', '/api/news', 'application/json')['schema']).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/NewsArticle' } });
    expect(body('post', '/api/contact', 'application/json')['schema']).toMatchObject({ required: ['success'], properties: { success: { type: 'boolean' } } });
    expect(body('post', '/api/chat', 'text/plain')['schema']).toMatchObject({ type: 'string' });
    expect(body('get', '/sellers.json', 'application/json')['schema']).toEqual({ $ref: '#/components/schemas/SellersDocument' });
    expect(body('get', '/api/v1/public/data', 'application/json')['schema']).toEqual({ $ref: '#/components/schemas/DataResponse' });
  });

  it('documents every error status of docs/interface.md section 5 with its body', () => {
    const problem = (method: string, path: string, status: string) =>
      operation(method, path)['responses'][status]?.['content']?.['application/problem+json']?.['schema'] as Json | undefined;
    for (const { path, status, code } of [
      { path: '/api/contact', status: '400', code: 'validation_failed' },
      { path: '/api/contact', status: '502', code: 'upstream_unavailable' },
      { path: '/api/chat', status: '400', code: 'validation_failed' },
      { path: '/api/chat', status: '403', code: 'origin_not_allowed' },
      { path: '/api/chat', status: '429', code: 'rate_limited' },
    ] as const) {
      const schema = problem('post', path, status);
      expect(schema, `${path} ${status}`).toBeDefined();
      expect(schema!['required']).toEqual(expect.arrayContaining(['title', 'status', 'code']));
      expect(schema!['properties']['status']['const']).toBe(Number(status));
      expect(schema!['properties']['code']['enum']).toContain(code);
    }
    for (const [status, code] of [
      ['400', 'SVC1005'],
      ['429', 'SVC1010'],
    ] as const) {
      const schema = operation('get', '/api/v1/public/data')['responses'][status]['content']['application/json']['schema'] as Json;
      expect(schema['required']).toEqual(['code', 'message']);
      expect(schema['properties']['code']['const']).toBe(code);
      expect(schema['additionalProperties']).toBe(false);
    }
  });

  it('documents 431 on every operation: {code, message} on the data path, problem+json elsewhere', () => {
    for (const [path, item] of Object.entries(doc['paths'] as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        if (method === 'servers') continue;
        const response = (op as Json)['responses']['431'] as Json | undefined;
        expect(response, `${method} ${path}`).toBeDefined();
        const [type, media] = Object.entries(response!['content'] as Json)[0] as [string, Json];
        if (path === '/api/v1/public/data') {
          expect(type).toBe('application/json');
          expect(media['schema']['required']).toEqual(['code', 'message']);
          expect(media['schema']['properties']['code']['const']).toBe('headers_too_large');
        } else {
          expect(type, path).toBe('application/problem+json');
          expect(media['schema']['properties']['status']['const']).toBe(431);
          expect(media['schema']['properties']['code']['enum']).toEqual(['headers_too_large']);
        }
        expect(Object.keys(response!['headers'] as Json), path).toEqual(['Cache-Control']);
      }
    }
  });

  it('documents 405 with Allow on every path that refuses other methods, and not on the probes that answer any', () => {
    const allow = (method: string, path: string) => operation(method, path)['responses']['405']?.['headers']?.['Allow']?.['schema']?.['examples']?.[0];
    expect(allow('get', '/api/news')).toBe('GET, HEAD');
    expect(allow('get', '/sellers.json')).toBe('GET, HEAD');
    expect(allow('get', '/openapi.json')).toBe('GET, HEAD');
    expect(allow('post', '/api/contact')).toBe('POST');
    expect(allow('post', '/api/chat')).toBe('OPTIONS, POST');
    expect(allow('get', '/api/v1/public/data')).toBe('GET, HEAD');
    expect(operation('get', '/api/v1/public/data')['responses']['405']['content']['application/json']['schema']['properties']['code']['const']).toBe('method_not_allowed');
    expect(operation('get', '/healthz')['responses']['405']).toBeUndefined();
    expect(operation('get', '/readyz')['responses']['405']).toBeUndefined();
  });

  it('titles the document with the site name it is given', () => {
    expect(createOpenApiDocument({ siteName: 'Example Exchange', siteUrl: SITE }).info.title).toBe('Example Exchange public API');
  });

  it('documents 304 wherever an ETag is served', () => {
    for (const [method, path] of [['get', '/api/news'], ['get', '/sellers.json'], ['get', '/api/v1/public/data'], ['get', '/openapi.json']] as const) {
      const responses = operation(method, path)['responses'] as Json;
      expect(responses['200']['headers']['ETag']['required'], path).toBe(true);
      expect(responses['304'], path).toBeDefined();
      expect(responses['304']['content'], path).toBeUndefined();
    }
  });

  it('puts the RateLimit fields on every site response the limiter sees, and Retry-After and X-RateLimit-Scope on each 429', () => {
    for (const [method, path] of SITE_OPERATIONS) {
      for (const [status, response] of Object.entries(operation(method, path)['responses'] as Json)) {
        const headers = (response as Json)['headers'] as Json;
        for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy']) {
          // 431 is refused before the limiter runs; a 405 to an unknown method (TRACE) too.
          const expected = status === '431' ? undefined : status === '405' ? false : true;
          expect(headers[name]?.['required'] ?? (headers[name] ? false : undefined), `${path} ${status} ${name}`).toBe(expected);
        }
        for (const name of ['Retry-After', 'X-RateLimit-Scope']) expect(headers[name]?.['required'] === true, `${path} ${status} ${name}`).toBe(status === '429');
      }
    }
  });

  it('puts the X-RateLimit fields and the daily quota on every data response, and Retry-After on its 429', () => {
    for (const [status, response] of Object.entries(operation('get', '/api/v1/public/data')['responses'] as Json)) {
      const headers = (response as Json)['headers'] as Json;
      for (const name of ['X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Daily-Quota-Remaining']) {
        if (status === '431') {
          expect(headers[name], `${status} ${name}`).toBeUndefined();
          continue;
        }
        // 405 and 503 (an API key that cannot be checked is answered before the limiter) may lack them.
        expect(headers[name]?.['required'] === true, `${status} ${name}`).toBe(status !== '405' && status !== '503');
        expect(headers[name]['schema']['type']).toBe('integer');
      }
      expect(headers['Retry-After']?.['required'] === true, status).toBe(status === '429' || status === '503');
    }
  });

  it('names the windows a 429 can report, from the rate-limit policies', () => {
    const scope = (path: string) => operation('post', path)['responses']['429']['headers']['X-RateLimit-Scope']['schema']['enum'];
    expect(scope('/api/chat')).toEqual(['site-minute', 'chat-minute', 'chat-day']);
    expect(scope('/api/contact')).toEqual(['site-minute', 'contact-hour', 'contact-day']);
  });

  it('gives every operation a curl and a fetch example against the site URL', () => {
    for (const item of Object.values(doc['paths'] as Json)) {
      for (const op of Object.values(item as Json)) {
        if (!(op as Json)['operationId'] || ['getLiveness', 'getReadiness'].includes((op as Json)['operationId'])) continue;
        const samples = (op as Json)['x-codeSamples'] as Json[];
        expect(samples.map((s) => s['label']), (op as Json)['operationId']).toEqual(['curl', 'fetch']);
        expect(samples[0]!['source']).toContain(`'${SITE}/`);
      }
    }
  });

  it('is the same JSON for the same input, so the prebuilt file keeps its ETag across builds', () => {
    expect(JSON.stringify(createOpenApiDocument({ siteName: NAME, siteUrl: SITE }))).toBe(JSON.stringify(document));
  });
});

describe('the examples of the OpenAPI document', () => {
  it('each satisfy the schema they illustrate', async () => {
    const dereferenced = (await dereference(structuredClone(document) as never)) as unknown as Json;
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
    addFormats.default(ajv);
    const checked: string[] = [];
    const check = (where: string, schema: Json, value: unknown) => {
      const validateExample = ajv.compile(schema);
      expect(validateExample(value), `${where}: ${ajv.errorsText(validateExample.errors)}`).toBe(true);
      checked.push(where);
    };
    // Schema-level `examples`, wherever they are.
    const walk = (where: string, node: unknown): void => {
      if (Array.isArray(node)) return node.forEach((child, i) => walk(`${where}/${i}`, child));
      if (typeof node !== 'object' || node === null) return;
      const schema = node as Json;
      if (Array.isArray(schema['examples']) && (schema['type'] !== undefined || schema['anyOf'] !== undefined)) {
        schema['examples'].forEach((example: unknown, i: number) => check(`${where}/examples/${i}`, schema, example));
      }
      for (const [key, child] of Object.entries(schema)) if (key !== 'examples') walk(`${where}/${key}`, child);
    };
    walk('#', dereferenced['components']['schemas']);
    for (const [path, item] of Object.entries(dereferenced['paths'] as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        if (typeof op !== 'object' || !(op as Json)['responses']) continue;
        walk(`${method} ${path}/parameters`, (op as Json)['parameters'] ?? []);
        const bodies: [string, Json][] = Object.entries(((op as Json)['requestBody']?.['content'] ?? {}) as Json).map(([type, media]) => [`${method} ${path} request ${type}`, media as Json]);
        for (const [status, response] of Object.entries((op as Json)['responses'] as Json)) {
          walk(`${method} ${path} ${status}/headers`, (response as Json)['headers'] ?? {});
          for (const [type, media] of Object.entries(((response as Json)['content'] ?? {}) as Json)) bodies.push([`${method} ${path} ${status} ${type}`, media as Json]);
        }
        for (const [where, media] of bodies) {
          if (media['example'] !== undefined) check(where, media['schema'] as Json, media['example']);
          for (const [name, example] of Object.entries((media['examples'] ?? {}) as Json)) check(`${where} ${name}`, media['schema'] as Json, (example as Json)['value']);
        }
      }
    }
    expect(checked.length).toBeGreaterThan(60);
  });
});

describe('the document says what the server enforces', () => {
  it('accepts the JSON media types the body reader accepts, on both write operations, and forms on contact', () => {
    expect(Object.keys(operation('post', '/api/chat')['requestBody']['content'] as object).sort()).toEqual(['application/*+json', 'application/json']);
    expect(Object.keys(operation('post', '/api/contact')['requestBody']['content'] as object).sort()).toEqual(['application/*+json', 'application/json', 'application/x-www-form-urlencoded']);
  });

  it("publishes the Idempotency-Key's printable-ASCII rule, and the pattern agrees with the handler", () => {
    const header = (operation('post', '/api/contact')['parameters'] as Json[]).find((p) => p['name'] === 'Idempotency-Key')!;
    const schema = header['schema'] as Json;
    expect(schema['maxLength']).toBe(255);
    const pattern = new RegExp(String(schema['pattern']));
    for (const good of ['abc', '8e03978e-40d5-43e8-bc93-6894a57f9324', '"quoted"']) expect(pattern.test(good), good).toBe(true);
    for (const bad of [' lead', 'trail ', 'tab\there', 'é']) expect(pattern.test(bad), bad).toBe(false);
  });
});
