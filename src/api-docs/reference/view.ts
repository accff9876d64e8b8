/**
 * The human API reference (/docs/api) as data: a pure walk over the OpenAPI document that gives
 * the page everything it prints (operations by tag, parameter, field and header rows, examples,
 * code samples, schemas). The page only lays it out, so what people read is what the document
 * says, and the document is what the contract tests hold the code to.
 */
import type { ApiDocument, Header, MediaType, Operation, Server } from './openapi-shape.ts';
import { METHODS } from './openapi-shape.ts';
import { describe, fieldRows, namedSchemas, resolve, schemaAnchor, typeLabel } from './schema-text.ts';
import type { BodyView, ExampleView, OperationView, ReferenceView, Row, TagView } from './view-model.ts';

/** Reason phrases (RFC 9110 section 15) of the statuses the document uses. */
const REASONS: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '204': 'No Content',
  '304': 'Not Modified',
  '400': 'Bad Request',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'Not Found',
  '405': 'Method Not Allowed',
  '413': 'Content Too Large',
  '415': 'Unsupported Media Type',
  '422': 'Unprocessable Content',
  '429': 'Too Many Requests',
  '431': 'Request Header Fields Too Large', // RFC 6585 section 5
  '500': 'Internal Server Error',
  '502': 'Bad Gateway',
  '503': 'Service Unavailable',
};

export function reasonPhrase(status: string): string {
  return REASONS[status] ?? '';
}

/** `Community data` → `community-data`. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
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

