// Reads typed values out of database rows without casts: PGlite hands back `unknown` columns,
// and a wrong type here means the schema and the code disagree, which should fail loudly.

/** A database row as PGlite returns it. */
export type Row = Record<string, unknown>;

/** The row's text column `name`; throws when it is not a string. */
export function text(row: Row, name: string): string {
  const value = row[name];
  if (typeof value !== 'string') throw new TypeError(`Column ${name} is not text.`);
  return value;
}

/** The row's nullable text column `name`. */
export function textOrNull(row: Row, name: string): string | null {
  const value = row[name];
  return value === null || value === undefined ? null : text(row, name);
}

/** The row's integer column `name`; throws when it is not a number. */
export function int(row: Row, name: string): number {
  const value = row[name];
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw new TypeError(`Column ${name} is not an integer.`);
  return value;
}

/** The row's nullable integer column `name`. */
export function intOrNull(row: Row, name: string): number | null {
  const value = row[name];
  return value === null || value === undefined ? null : int(row, name);
}

/** The row's boolean column `name`. */
export function bool(row: Row, name: string): boolean {
  const value = row[name];
  if (typeof value !== 'boolean') throw new TypeError(`Column ${name} is not a boolean.`);
  return value;
}

/** The row's timestamp column `name`. */
export function date(row: Row, name: string): Date {
  const value = row[name];
  if (!(value instanceof Date)) throw new TypeError(`Column ${name} is not a timestamp.`);
  return value;
}

/** The row's nullable timestamp column `name`. */
export function dateOrNull(row: Row, name: string): Date | null {
  const value = row[name];
  return value === null || value === undefined ? null : date(row, name);
}

/** The row's text-array column `name`. */
export function textArray(row: Row, name: string): string[] {
  const value = row[name];
  if (!Array.isArray(value)) throw new TypeError(`Column ${name} is not an array.`);
  return value.map((item) => {
    if (typeof item !== 'string') throw new TypeError(`Column ${name} holds a non-text item.`);
    return item;
  });
}

/** The row's JSON object column `name` as string values (other values are dropped). */
export function stringRecord(row: Row, name: string): Record<string, string> {
  const value = row[name];
  const out: Record<string, string> = {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [key, item] of Object.entries(value)) if (typeof item === 'string') out[key] = item;
  return out;
}
