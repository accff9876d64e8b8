/**
 * Contract checks: hold a real HTTP response to what the OpenAPI document promises for its
 * operation and status. The document is built with `createOpenApiDocument` (no build needed) and
 * dereferenced by @readme/openapi-parser; bodies and headers are validated by Ajv (JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1) with ajv-formats.
 *
 *   const res = await fetch(`${url}/api/news`);
 *   const { body } = await expectToMatchContract('GET', '/api/news', res);
 *
 * Every check is recorded, so a test can assert which documented statuses were exercised.
 */
import { dereference } from '@readme/openapi-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createOpenApiDocument } from '../../src/api-docs/document.ts';
import { SITE_NAME } from '../../src/components/site.ts';

interface JsonSchema {
  type?: string | string[];
  [keyword: string]: unknown;
}
interface HeaderSpec {
  required?: boolean;
  schema?: JsonSchema;
}
interface MediaSpec {
  schema?: JsonSchema;
}
interface ResponseSpec {
  description: string;
  headers?: Record<string, HeaderSpec>;
  content?: Record<string, MediaSpec>;
}
interface OperationSpec {
  operationId: string;
  responses: Record<string, ResponseSpec>;
}
type PathSpec = Partial<Record<string, OperationSpec>>;
interface DereferencedDocument {
  paths: Record<string, PathSpec>;
}

export interface ContractCheck {
  operationId: string;
  status: number;
  /** Parsed JSON for JSON media types, the text otherwise; undefined when there is no body. */
  body: unknown;
  /** The raw body text. */
  text: string;
}

interface Contract {
  document: DereferencedDocument;
  ajv: Ajv2020;
  compiled: WeakMap<object, ValidateFunction>;
}

let contract: Promise<Contract> | undefined;

/** The dereferenced document and a validator, built once per test file. */
export function loadContract(): Promise<Contract> {
  contract ??= (async () => {
    const source = createOpenApiDocument({ siteName: SITE_NAME, siteUrl: 'http://contract.invalid' });
    const document = (await dereference(structuredClone(source) as never)) as unknown as DereferencedDocument;
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
    addFormats.default(ajv);
    return { document, ajv, compiled: new WeakMap() };
  })();
  return contract;
}

/** `operationId status` of every response checked so far in this file. */
export const exercised = new Set<string>();

/** Every `operationId status` pair the document declares. */
export async function documentedResponses(): Promise<string[]> {
  const { document } = await loadContract();
  const pairs: string[] = [];
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      if (!operation?.operationId || !operation.responses) continue;
      for (const status of Object.keys(operation.responses)) pairs.push(`${operation.operationId} ${status}`);
    }
  }
  return pairs.sort();
}

function templateMatches(template: string, pathname: string): boolean {
  const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`);
  return pattern.test(pathname);
}

function findOperation(document: DereferencedDocument, method: string, pathname: string): OperationSpec | undefined {
  const template = document.paths[pathname] ? pathname : Object.keys(document.paths).find((t) => templateMatches(t, pathname));
  if (!template) return undefined;
  const item = document.paths[template]!;
  // HEAD is GET without the body (RFC 9110 section 9.3.2).
  return item[method.toLowerCase()] ?? (method.toUpperCase() === 'HEAD' ? item['get'] : undefined);
}

/** HTTP fields are text: read numbers and booleans as the schema's type before validating. */
function headerValue(raw: string, schema: JsonSchema | undefined): unknown {
  const type = schema?.type;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(raw.trim())) return Number(raw.trim());
  if (type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

function validator(c: Contract, schema: JsonSchema): ValidateFunction {
  let validate = c.compiled.get(schema);
  if (!validate) {
    validate = c.ajv.compile(schema);
    c.compiled.set(schema, validate);
  }
  return validate;
}

function essence(contentType: string | null): string | undefined {
  return contentType?.split(';', 1)[0]?.trim().toLowerCase() || undefined;
}

function isJson(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

/**
 * Validate `response` against the document: its status must be documented for the operation,
 * every required header present and every documented header of the right type, the content
 * type one the status declares, and the body valid against that media type's schema (or empty
 * when none is declared). Throws with every mismatch; resolves with the body for further checks.
 * Reads (consumes) the response body.
 */
export async function expectToMatchContract(method: string, target: string, response: Response): Promise<ContractCheck> {
  const c = await loadContract();
  const pathname = new URL(target, 'http://contract.invalid').pathname;
  const label = `${method.toUpperCase()} ${pathname} → ${response.status}`;
  const operation = findOperation(c.document, method, pathname);
  if (!operation) throw new Error(`${label}: no operation ${method.toUpperCase()} ${pathname} in the OpenAPI document`);
  const status = String(response.status);
  const spec = operation.responses[status] ?? operation.responses[`${status[0]}XX`] ?? operation.responses['default'];
  const text = await response.text();
  if (!spec) {
    throw new Error(`${label}: status ${status} is not documented for ${operation.operationId} (documented: ${Object.keys(operation.responses).join(', ')}); body: ${text.slice(0, 300)}`);
  }
  const problems: string[] = [];

  for (const [name, header] of Object.entries(spec.headers ?? {})) {
    const raw = response.headers.get(name);
    if (raw === null) {
      if (header.required) problems.push(`header ${name} is required but missing`);
      continue;
    }
    if (!header.schema) continue;
    const validate = validator(c, header.schema);
    if (!validate(headerValue(raw, header.schema))) problems.push(`header ${name}: ${JSON.stringify(raw)} ${c.ajv.errorsText(validate.errors, { dataVar: name })}`);
  }

  let body: unknown;
  const declared = Object.keys(spec.content ?? {});
  const noBody = method.toUpperCase() === 'HEAD';
  if (declared.length === 0) {
    if (text !== '') problems.push(`no body is documented, but one was sent: ${text.slice(0, 200)}`);
  } else if (!noBody) {
    const mediaType = essence(response.headers.get('content-type'));
    const media = mediaType ? spec.content![mediaType] : undefined;
    if (!mediaType || !media) {
      problems.push(`content type ${JSON.stringify(response.headers.get('content-type'))} is not one of the documented ${declared.join(', ')}`);
    } else {
      body = text;
      if (isJson(mediaType)) {
        try {
          body = JSON.parse(text) as unknown;
        } catch (error) {
          problems.push(`body is not JSON: ${(error as Error).message}`);
        }
      }
      if (media.schema && problems.length === 0) {
        const validate = validator(c, media.schema);
        if (!validate(body)) problems.push(`body: ${c.ajv.errorsText(validate.errors, { dataVar: 'body' })}; got ${text.slice(0, 300)}`);
      }
    }
  }

  if (problems.length > 0) throw new Error(`${label} (${operation.operationId}) breaks the contract:\n  - ${problems.join('\n  - ')}`);
  exercised.add(`${operation.operationId} ${status}`);
  return { operationId: operation.operationId, status: response.status, body, text };
}
