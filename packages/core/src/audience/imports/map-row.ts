/**
 * From a CSV row to an imported contact. The column map is resolved once against the file's
 * header (at upload, so a bad map is a 422 before anything is queued) and compiled into column
 * indexes; then each row is read cell by cell. A row whose email or a typed value is invalid is
 * a failed row with a message naming the field; the import goes on.
 *
 * Cells: surrounding blanks are trimmed; an empty cell means "no value" (the field is left
 * alone on an existing contact, never cleared). Booleans read `true/false`, `1/0`, `yes/no`
 * (any case); numbers are decimal (`-1.5`, `2e3`). A property is stored as its contact
 * property's type: a string property gets the cell's text (a boolean as `true`/`false`), a
 * number property a number (a boolean as 1/0).
 */
import { AUDIENCE_LIMITS, type ContactPropertyType, type ContactPropertyValue } from '@petrel/contracts';
import { parseAddress } from '../../kernel/mailbox.js';
import type { ImportedContact } from '../ports.js';
import { DEFAULT_COLUMNS } from './options.js';
import type { ImportColumnMap, ImportPropertyType } from './ports.js';

/** A column map as column indexes of one header. */
export interface CompiledColumnMap {
  email: number;
  first_name?: number;
  last_name?: number;
  unsubscribed?: number;
  properties: { key: string; index: number; type: ImportPropertyType; stored: ContactPropertyType }[];
}

/** A rule broken by the column map, with the path of the field it concerns (`column_map.first_name`). */
export interface ColumnMapIssue {
  path: (string | number)[];
  message: string;
}

/** Lower case, letters and digits only: `First Name`, `first_name` and `FirstName` are one column. */
const loose = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The header's columns, for messages (the first few). */
function listColumns(header: readonly string[]): string {
  const shown = header.slice(0, 10).map((c) => JSON.stringify(c));
  return `${shown.join(', ')}${header.length > 10 ? `, … (${header.length} columns)` : ''}`;
}

/**
 * The column map checked against `header` (its cells trimmed) and the team's contact properties:
 * every named column must be in the header and every property defined (a number property read
 * from a number or boolean column). Without a map (`null`), the contact fields are looked up by
 * their default names, loosely (`Email`, `First Name`…): `email` must be there, the others are
 * imported when present. Returns the map with exact header names and resolved types, or the
 * issues.
 */
export function resolveColumnMap(
  header: readonly string[],
  map: ImportColumnMap | null,
  propertyTypes: Readonly<Record<string, ContactPropertyType | null>>,
): { ok: true; map: ImportColumnMap } | { ok: false; issues: ColumnMapIssue[] } {
  const cells = header.map((c) => c.trim());
  const issues: ColumnMapIssue[] = [];
  if (!map) {
    const find = (name: string) => cells.find((c) => loose(c) === loose(name));
    const email = find(DEFAULT_COLUMNS.email);
    if (email === undefined) {
      return {
        ok: false,
        issues: [
          {
            path: ['file'],
            message: `the header row has no "email" column (columns: ${listColumns(cells)}); name the email column in column_map.email`,
          },
        ],
      };
    }
    const resolved: ImportColumnMap = { email, properties: {} };
    for (const field of ['first_name', 'last_name', 'unsubscribed'] as const) {
      const col = find(DEFAULT_COLUMNS[field]);
      if (col !== undefined) resolved[field] = col;
    }
    return { ok: true, map: resolved };
  }
  const need = (path: (string | number)[], col: string) => {
    if (!cells.includes(col))
      issues.push({
        path,
        message: `no column ${JSON.stringify(col)} in the file's header (columns: ${listColumns(cells)})`,
      });
  };
  need(['column_map', 'email'], map.email);
  for (const field of ['first_name', 'last_name', 'unsubscribed'] as const) {
    const col = map[field];
    if (col !== undefined) need(['column_map', field], col);
  }
  const properties: ImportColumnMap['properties'] = {};
  for (const [key, mapping] of Object.entries(map.properties)) {
    const path = ['column_map', 'properties', key];
    need([...path, 'column'], mapping.column);
    const declared = propertyTypes[key] ?? null;
    if (declared === null) {
      issues.push({
        path,
        message: 'no contact property has this key (create it first: POST /contact-properties)',
      });
      continue;
    }
    const type = mapping.type ?? declared;
    if (declared === 'number' && type === 'string')
      issues.push({
        path: [...path, 'type'],
        message: 'the contact property is a number: type must be number or boolean',
      });
    properties[key] = { column: mapping.column, type, property: declared };
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, map: { ...map, properties } };
}

/** The header of the file lacks a column of the import's map. */
export class ColumnMapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ColumnMapError';
  }
}

/** Indexes of a resolved map's columns in `header`; throws ColumnMapError naming a column the header lacks. */
export function compileColumnMap(header: readonly string[], map: ImportColumnMap): CompiledColumnMap {
  const cells = header.map((c) => c.trim());
  const index = (col: string): number => {
    const i = cells.indexOf(col);
    if (i < 0) throw new ColumnMapError(`no column ${JSON.stringify(col)} in the file's header`);
    return i;
  };
  const compiled: CompiledColumnMap = { email: index(map.email), properties: [] };
  for (const field of ['first_name', 'last_name', 'unsubscribed'] as const) {
    const col = map[field];
    if (col !== undefined) compiled[field] = index(col);
  }
  for (const [key, m] of Object.entries(map.properties)) {
    const stored = m.property ?? 'string';
    compiled.properties.push({ key, index: index(m.column), type: m.type ?? stored, stored });
  }
  return compiled;
}

const TRUE = new Set(['true', '1', 'yes']);
const FALSE = new Set(['false', '0', 'no']);
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** `true/false`, `1/0`, `yes/no` in any case; undefined for anything else. */
export function parseBoolean(cell: string): boolean | undefined {
  const v = cell.toLowerCase();
  return TRUE.has(v) ? true : FALSE.has(v) ? false : undefined;
}

/** A finite decimal number; undefined for anything else (`0x10`, `1,5`, `Infinity`, ``). */
export function parseNumber(cell: string): number | undefined {
  if (!DECIMAL.test(cell)) return undefined;
  const n = Number(cell);
  return Number.isFinite(n) ? n : undefined;
}

export type MappedRow = { ok: true; contact: ImportedContact } | { ok: false; message: string };

const fail = (message: string): MappedRow => ({ ok: false, message });
const shown = (cell: string): string => JSON.stringify(cell.length > 64 ? `${cell.slice(0, 64)}…` : cell);

/** One CSV record as a contact, or why it cannot be one. */
export function mapRow(record: readonly string[], map: CompiledColumnMap): MappedRow {
  const cell = (i: number | undefined): string => (i === undefined ? '' : (record[i] ?? '').trim());
  const email = cell(map.email);
  if (email === '') return fail('email: is empty');
  const parsed = parseAddress(email);
  if (!parsed.ok || parsed.name !== undefined)
    return fail(`email: ${shown(email)} is not a valid email address`);
  const contact: ImportedContact = { email: parsed.address };
  for (const field of ['first_name', 'last_name'] as const) {
    const v = cell(map[field]);
    if (v === '') continue;
    if (v.length > AUDIENCE_LIMITS.contactName)
      return fail(`${field}: must be at most ${AUDIENCE_LIMITS.contactName} characters`);
    contact[field] = v;
  }
  const unsub = cell(map.unsubscribed);
  if (unsub !== '') {
    const b = parseBoolean(unsub);
    if (b === undefined)
      return fail(`unsubscribed: ${shown(unsub)} is not a boolean (true/false, 1/0, yes/no)`);
    contact.unsubscribed = b;
  }
  let properties: Record<string, ContactPropertyValue> | undefined;
  for (const p of map.properties) {
    const v = cell(p.index);
    if (v === '') continue;
    const value = propertyValue(v, p.type, p.stored);
    if (typeof value === 'object') return fail(`properties.${p.key}: ${value.message}`);
    (properties ??= {})[p.key] = value;
  }
  if (properties) contact.properties = properties;
  return { ok: true, contact };
}

function propertyValue(
  cell: string,
  type: ImportPropertyType,
  stored: ContactPropertyType,
): ContactPropertyValue | { message: string } {
  if (type === 'boolean') {
    const b = parseBoolean(cell);
    if (b === undefined) return { message: `${shown(cell)} is not a boolean (true/false, 1/0, yes/no)` };
    return stored === 'number' ? (b ? 1 : 0) : String(b);
  }
  if (type === 'number') {
    const n = parseNumber(cell);
    if (n === undefined) return { message: `${shown(cell)} is not a number` };
    return stored === 'number' ? n : cell;
  }
  if (cell.length > AUDIENCE_LIMITS.propertyStringValue)
    return { message: `must be at most ${AUDIENCE_LIMITS.propertyStringValue} characters` };
  return cell;
}
