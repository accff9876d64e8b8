/**
 * The human API reference (/docs/api) as data: a pure walk over the OpenAPI document that gives
 * the page everything it prints (operations by tag, parameter, field and header rows, examples,
 * code samples, schemas). The page only lays it out, so what people read is what the document
 * says, and the document is what the contract tests hold the code to.
 */
import type { CodeSample } from './code-samples.ts';

/** A JSON Schema object as zod-openapi writes it (the subset read here). */
export interface Schema {
  $ref?: string;
  title?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  examples?: unknown[];
}

interface MediaType {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { summary?: string; value?: unknown }>;
}

interface Header {
  description?: string;
  required?: boolean;
  schema?: Schema;
}

interface Parameter extends Header {
  name: string;
  in: string;
}

interface Response {
  description: string;
  headers?: Record<string, Header>;
  content?: Record<string, MediaType>;
}

interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses?: Record<string, Response>;
  'x-codeSamples'?: CodeSample[];
}

interface Server {
  url: string;
  description?: string;
}

type PathItem = { servers?: Server[] } & Partial<Record<(typeof METHODS)[number], Operation>>;

/** What this module reads of an OpenAPI 3.1 document. */
export interface ApiDocument {
  openapi: string;
  info: { title: string; version: string; summary?: string; description?: string };
  servers?: Server[];
  tags?: { name: string; description?: string }[];
  paths?: Record<string, PathItem>;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Reason phrases (RFC 9110 section 15) of the statuses the document uses. */
const REASONS: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '204': 'No Content',
  '304': 'Not Modified',
  '400': 'Bad Request',
  '403': 'Forbidden',
  '404': 'Not Found',
  '405': 'Method Not Allowed',
  '413': 'Content Too Large',
  '415': 'Unsupported Media Type',
  '422': 'Unprocessable Content',
  '429': 'Too Many Requests',
  '500': 'Internal Server Error',
  '502': 'Bad Gateway',
  '503': 'Service Unavailable',
};

export function reasonPhrase(status: string): string {
  return REASONS[status] ?? '';
}

/** A type as people read it, e.g. `array of NewsArticle`, `string (date-time) or null`. */
export interface TypeLabel {
  text: string;
  /** Component schema the type names, for a link to its section. */
  ref?: string;
}

export interface Row {
  name: string;
  type: TypeLabel;
  required: boolean;
  /** Description with constraints (enum values, lengths, formats) appended. */
  description: string;
}

export interface ParameterRow extends Row {
  /** query, header, path or cookie. */
  in: string;
}

export interface ExampleView {
  /** The example's summary when several are given. */
  title?: string;
  text: string;
}

export interface BodyView {
  contentType: string;
  type: TypeLabel;
  /** Fields of the body, nested ones as `messages[].role`. */
  fields: Row[];
  examples: ExampleView[];
}

export interface ResponseView {
  status: string;
  reason: string;
  description: string;
  headers: Row[];
  body?: BodyView;
  /** `code` values an error body can carry. */
  codes: string[];
}

export interface OperationView {
  id: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  server?: Server;
  parameters: ParameterRow[];
  requestBody?: BodyView & { required: boolean };
  responses: ResponseView[];
  samples: CodeSample[];
}

export interface TagView {
  name: string;
  /** Fragment id of the tag's section. */
  anchor: string;
  description: string;
  operations: OperationView[];
}

export interface SchemaView {
  name: string;
  anchor: string;
  description: string;
  fields: Row[];
}

export interface ReferenceView {
  title: string;
  version: string;
  summary: string;
  description: string;
  servers: Server[];
  tags: TagView[];
  schemas: SchemaView[];
}

/** `Community data` → `community-data`. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

export function schemaAnchor(name: string): string {
  return `schema-${name}`;
}

function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

/** Follow a local `#/components/schemas/X` reference. */
function resolve(doc: ApiDocument, schema: Schema): Schema {
  if (!schema.$ref) return schema;
  const resolved = doc.components?.schemas?.[refName(schema.$ref)];
  if (!resolved) throw new Error(`Unresolvable reference ${schema.$ref}`);
  return resolved;
}

const JS_MAX_SAFE = Number.MAX_SAFE_INTEGER;

export function typeLabel(schema: Schema): TypeLabel {
  if (schema.$ref) {
    const name = refName(schema.$ref);
    return { text: name, ref: name };
  }
  // A per-status copy of a component (a Problem narrowed to its codes) carries its name as title.
  if (schema.title) return { text: schema.title, ref: schema.title };
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    const labels = variants.map(typeLabel);
    const ref = labels.find((l) => l.ref)?.ref;
    return { text: labels.map((l) => l.text).join(' or '), ...(ref ? { ref } : {}) };
  }
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : schema.type;
  if (type === 'array') {
    const item = schema.items ? typeLabel(schema.items) : { text: 'any' };
    return { text: `array of ${item.text}`, ...(item.ref ? { ref: item.ref } : {}) };
  }
  if (type === undefined) return { text: schema.properties ? 'object' : 'any' };
  return { text: schema.format ? `${type} (${schema.format})` : type };
}

function code(value: unknown): string {
  return `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
}

/** The description followed by what the schema constrains, as short sentences. */
export function describe(schema: Schema, description = schema.description ?? ''): string {
  const notes: string[] = [];
  const plain = schema.anyOf?.find((s) => s.type !== 'null') ?? schema;
  if (plain.const !== undefined) notes.push(`Always ${code(plain.const)}.`);
  if (plain.enum) notes.push(`One of ${plain.enum.map(code).join(', ')}.`);
  const range = (min: number | undefined, max: number | undefined, unit: string) => {
    // Descriptions written for people often state the bound already ("at most 200 characters").
    if (max !== undefined && description.includes(`${max.toLocaleString('en')} ${unit}`)) return;
    if (min !== undefined && max !== undefined) notes.push(`${min} to ${max.toLocaleString('en')} ${unit}.`);
    else if (max !== undefined) notes.push(`At most ${max.toLocaleString('en')} ${unit}.`);
    else if (min !== undefined && min > 0) notes.push(`At least ${min} ${unit}.`);
  };
  range(plain.minLength, plain.maxLength, 'characters');
  range(plain.minItems, plain.maxItems, 'items');
  const max = plain.maximum !== undefined && plain.maximum < JS_MAX_SAFE ? plain.maximum : undefined;
  if (plain.minimum !== undefined && max !== undefined) notes.push(`From ${plain.minimum} to ${max}.`);
  else if (max !== undefined) notes.push(`At most ${max}.`);
  else if (plain.minimum !== undefined) notes.push(`At least ${plain.minimum}.`);
  // Long generated patterns (zod's calendar-aware date regex) say less than the format does.
  if (plain.pattern && !plain.format && plain.pattern.length <= 60) notes.push(`Pattern ${code(plain.pattern)}.`);
  if (schema.anyOf?.some((s) => s.type === 'null')) notes.push('May be null.');
  return [description, ...notes].filter(Boolean).join(' ');
}

/**
 * The fields of an object schema; nested objects and arrays of objects are expanded with
 * `parent.child` and `parent[].child` names, down to `depth` levels.
 */
export function fieldRows(doc: ApiDocument, schema: Schema, prefix = '', depth = 2): Row[] {
  const resolved = resolve(doc, schema);
  if (resolved.type === 'array' && resolved.items) return fieldRows(doc, resolved.items, `${prefix}[]`, depth);
  const rows: Row[] = [];
  const required = new Set(resolved.required ?? []);
  for (const [name, property] of Object.entries(resolved.properties ?? {})) {
    const full = prefix ? `${prefix}.${name}` : name;
    const inner = resolve(doc, property);
    rows.push({ name: full, type: typeLabel(property), required: required.has(name), description: describe(inner, property.description ?? inner.description) });
    if (depth > 0) {
      const element = inner.type === 'array' && inner.items ? resolve(doc, inner.items) : inner;
      if (element.properties) rows.push(...fieldRows(doc, element, inner.type === 'array' ? `${full}[]` : full, depth - 1));
    }
  }
  return rows;
}

function headerRows(headers: Record<string, Header> | undefined): Row[] {
  return Object.entries(headers ?? {}).map(([name, header]) => ({
    name,
    type: header.schema ? typeLabel(header.schema) : { text: 'string' },
    required: header.required === true,
    description: describe(header.schema ?? {}, header.description ?? header.schema?.description ?? ''),
  }));
}

function exampleText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

function examplesOf(media: MediaType): ExampleView[] {
  if (media.examples) {
    return Object.entries(media.examples).map(([name, example]) => ({ title: example.summary ?? name, text: exampleText(example.value) }));
  }
  return media.example === undefined ? [] : [{ text: exampleText(media.example) }];
}

function bodyView(doc: ApiDocument, content: Record<string, MediaType> | undefined): BodyView | undefined {
  const [contentType, media] = Object.entries(content ?? {})[0] ?? [];
  if (!contentType || !media) return undefined;
  const schema = media.schema ?? {};
  return { contentType, type: typeLabel(schema), fields: fieldRows(doc, schema), examples: examplesOf(media) };
}

function codesOf(doc: ApiDocument, body: BodyView | undefined, content: Record<string, MediaType> | undefined): string[] {
  const schema = Object.values(content ?? {})[0]?.schema;
  if (!body || !schema) return [];
  const codeSchema = resolve(doc, schema).properties?.['code'];
  if (!codeSchema) return [];
  if (codeSchema.enum) return codeSchema.enum.map(String);
  return codeSchema.const === undefined ? [] : [String(codeSchema.const)];
}

function operationView(doc: ApiDocument, path: string, method: string, operation: Operation, server: Server | undefined): OperationView {
  const requestBody = operation.requestBody ? bodyView(doc, operation.requestBody.content) : undefined;
  return {
    id: operation.operationId ?? slug(`${method} ${path}`),
    method: method.toUpperCase(),
    path,
    summary: operation.summary ?? '',
    description: operation.description ?? '',
    ...(server ? { server } : {}),
    parameters: (operation.parameters ?? []).map((p) => ({
      name: p.name,
      in: p.in,
      type: p.schema ? typeLabel(p.schema) : { text: 'string' },
      required: p.required === true,
      description: describe(p.schema ?? {}, p.description ?? p.schema?.description ?? ''),
    })),
    ...(requestBody ? { requestBody: { ...requestBody, required: operation.requestBody?.required === true } } : {}),
    responses: Object.entries(operation.responses ?? {}).map(([status, response]) => {
      const body = bodyView(doc, response.content);
      // Error bodies are described once, under Schemas; a 2xx body's fields are listed in place.
      const shown = body && !status.startsWith('2') ? { ...body, fields: [] } : body;
      return {
        status,
        reason: reasonPhrase(status),
        description: response.description,
        headers: headerRows(response.headers),
        ...(shown ? { body: shown } : {}),
        codes: codesOf(doc, body, response.content),
      };
    }),
    samples: operation['x-codeSamples'] ?? [],
  };
}

/** Everything /docs/api shows, in document order, grouped by tag. */
export function referenceView(document: object): ReferenceView {
  const doc = document as ApiDocument;
  const tags = new Map<string, TagView>();
  for (const tag of doc.tags ?? []) tags.set(tag.name, { name: tag.name, anchor: slug(tag.name), description: tag.description ?? '', operations: [] });
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const tagName = operation.tags?.[0] ?? 'Other';
      if (!tags.has(tagName)) tags.set(tagName, { name: tagName, anchor: slug(tagName), description: '', operations: [] });
      tags.get(tagName)!.operations.push(operationView(doc, path, method, operation, item.servers?.[0] ?? doc.servers?.[0]));
    }
  }
  return {
    title: doc.info.title,
    version: doc.info.version,
    summary: doc.info.summary ?? '',
    description: doc.info.description ?? '',
    servers: doc.servers ?? [],
    tags: [...tags.values()].filter((tag) => tag.operations.length > 0),
    schemas: [...namedSchemas(doc)].map(([name, schema]) => ({
      name,
      anchor: schemaAnchor(name),
      description: schema.description ?? '',
      fields: fieldRows(doc, schema, '', 0),
    })),
  };
}

/**
 * The schemas a reader can look up by name: the components, then the object schemas nested in
 * them that carry a JSON Schema `title` (Seller inside SellersDocument), first occurrence wins.
 */
export function namedSchemas(doc: ApiDocument): Map<string, Schema> {
  const named = new Map<string, Schema>(Object.entries(doc.components?.schemas ?? {}));
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    const schema = node as Schema;
    if (schema.title && schema.properties && !named.has(schema.title)) named.set(schema.title, schema);
    Object.values(schema).forEach(visit);
  };
  visit(doc.components?.schemas ?? {});
  return named;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/**
 * The little Markdown the document's descriptions use, as HTML: `code` and **strong** inside
 * escaped text. Paragraphs are split by the caller (`paragraphs`).
 */
export function inlineMarkdown(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
}

export function paragraphs(text: string): string[] {
  return text
    .split(/\n{2,}/)
    .map((p) => p.trim())
    .filter(Boolean);
}
