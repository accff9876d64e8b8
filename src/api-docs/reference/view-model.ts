/**
 * What /docs/api prints, as data: operations by tag, rows of parameters, fields and headers,
 * examples, code samples and schemas. Built by `referenceView` (view.ts), laid out by the
 * components in src/components/api-docs.
 */
import type { CodeSample } from '../../lib/openapi/code-samples.ts';
import type { Server } from './openapi-shape.ts';

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
