/**
 * What the reference reads of an OpenAPI 3.1 document, as zod-openapi writes it: a typed subset,
 * so the walk over the document is checked by the compiler.
 */
import type { CodeSample } from '../../lib/openapi/code-samples.ts';

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

export interface MediaType {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { summary?: string; value?: unknown }>;
}

export interface Header {
  description?: string;
  required?: boolean;
  schema?: Schema;
}

export interface Parameter extends Header {
  name: string;
  in: string;
}

export interface Response {
  description: string;
  headers?: Record<string, Header>;
  content?: Record<string, MediaType>;
}

export interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses?: Record<string, Response>;
  'x-codeSamples'?: CodeSample[];
}

export interface Server {
  url: string;
  description?: string;
}

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export type PathItem = { servers?: Server[] } & Partial<Record<(typeof METHODS)[number], Operation>>;

/** What the reference reads of an OpenAPI 3.1 document. */
export interface ApiDocument {
  openapi: string;
  info: { title: string; version: string; summary?: string; description?: string };
  servers?: Server[];
  tags?: { name: string; description?: string }[];
  paths?: Record<string, PathItem>;
  components?: { schemas?: Record<string, Schema> };
}
