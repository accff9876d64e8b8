/**
 * JSON Schemas as people read them: a type label (`array of Seller`), a description with the
 * constraints appended, and the rows of an object's fields.
 */
import type { ApiDocument, Schema } from './openapi-shape.ts';
import type { Row, TypeLabel } from './view-model.ts';

export function schemaAnchor(name: string): string {
  return `schema-${name}`;
}

function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

/** Follow a local `#/components/schemas/X` reference. */
export function resolve(doc: ApiDocument, schema: Schema): Schema {
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
