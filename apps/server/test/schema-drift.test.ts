import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import ts from 'typescript';
import type { Database } from '../src/db/database.js';
import { createTestDatabase } from './support/test-database.js';

// db/schema.ts (with schema-conversations.ts) is what every query is typed against; the
// migrations are what the database has. This test reads the kysely types with the TypeScript
// checker and compares them with a freshly migrated database: the same tables, the same
// columns, the same nullability, and a column type that can hold what the TypeScript type says.

const schemaFile = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'db', 'schema.ts');

/** What the TypeScript side says of a column. */
type DeclaredColumn = {
  nullable: boolean;
  kind: 'string' | 'number' | 'boolean' | 'date' | 'array' | 'object' | 'other';
};
/** What the database says of a column. */
type StoredColumn = { nullable: boolean; dataType: string };

/** Postgres data types (information_schema.columns.data_type) each TypeScript kind may be read from. */
const STORABLE: Record<DeclaredColumn['kind'], readonly string[]> = {
  string: ['text', 'character varying', 'character', 'uuid', 'bigint', 'numeric', 'USER-DEFINED', 'tsvector'],
  number: ['integer', 'smallint', 'bigint', 'real', 'double precision', 'numeric'],
  boolean: ['boolean'],
  date: ['timestamp with time zone', 'timestamp without time zone', 'date'],
  array: ['ARRAY', 'jsonb', 'json'],
  object: ['jsonb', 'json'],
  other: [],
};

/** Tables and their columns as `DB` in db/schema.ts declares them. */
function declaredTables(): Map<string, Map<string, DeclaredColumn>> {
  const program = ts.createProgram([schemaFile], { strict: true, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(schemaFile);
  assert.ok(source, 'db/schema.ts is readable');
  const alias = source.statements.find(
    (node): node is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(node) && node.name.text === 'DB',
  );
  assert.ok(alias, 'db/schema.ts declares DB');
  const db = checker.getTypeAtLocation(alias.name);
  const tables = new Map<string, Map<string, DeclaredColumn>>();
  for (const table of checker.getPropertiesOfType(db)) {
    const columns = new Map<string, DeclaredColumn>();
    const tableType = checker.getTypeOfSymbolAtLocation(table, alias);
    for (const column of checker.getPropertiesOfType(tableType)) {
      let type = checker.getTypeOfSymbolAtLocation(column, alias);
      // Generated<T> and ColumnType<S, I, U>: what a select returns is `__select__`.
      const selected = type.getProperty('__select__');
      if (selected) type = checker.getTypeOfSymbolAtLocation(selected, alias);
      columns.set(column.name, declaredColumn(checker, type));
    }
    tables.set(table.name, columns);
  }
  return tables;
}

function declaredColumn(checker: ts.TypeChecker, type: ts.Type): DeclaredColumn {
  const parts = type.isUnion() ? type.types : [type];
  const nullable = parts.some((part) => (part.flags & ts.TypeFlags.Null) !== 0);
  const kinds = new Set(
    parts
      .filter((part) => (part.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)) === 0)
      .map((part): DeclaredColumn['kind'] => {
        if (part.flags & ts.TypeFlags.StringLike) return 'string';
        if (part.flags & ts.TypeFlags.NumberLike) return 'number';
        if (part.flags & ts.TypeFlags.BooleanLike) return 'boolean';
        if (checker.isArrayType(part) || checker.isTupleType(part)) return 'array';
        if (part.getSymbol()?.name === 'Date') return 'date';
        if (part.flags & ts.TypeFlags.Object) return 'object';
        return 'other';
      }),
  );
  const [kind, ...others] = [...kinds];
  return { nullable, kind: kind !== undefined && others.length === 0 ? kind : 'other' };
}

/** Every difference between the declared and the stored columns of the tables both sides have. */
function driftProblems(
  declared: ReadonlyMap<string, ReadonlyMap<string, DeclaredColumn>>,
  stored: ReadonlyMap<string, ReadonlyMap<string, StoredColumn>>,
): string[] {
  const problems: string[] = [];
  for (const [table, columns] of declared) {
    const inDatabase = stored.get(table);
    if (!inDatabase) continue;
    for (const name of columns.keys()) {
      if (!inDatabase.has(name)) problems.push(`${table}.${name}: in db/schema.ts, not in the database`);
    }
    for (const [name, column] of inDatabase) {
      const type = columns.get(name);
      if (!type) {
        problems.push(`${table}.${name}: in the database, not in db/schema.ts`);
        continue;
      }
      if (type.nullable !== column.nullable) {
        const say = (nullable: boolean) => (nullable ? 'nullable' : 'not null');
        problems.push(
          `${table}.${name}: ${say(column.nullable)} in the database, ${say(type.nullable)} in db/schema.ts`,
        );
      }
      if (type.kind !== 'other' && !STORABLE[type.kind].includes(column.dataType)) {
        problems.push(`${table}.${name}: ${column.dataType} in the database, ${type.kind} in db/schema.ts`);
      }
    }
  }
  return problems;
}

/** A copy of `tables` with one more column in `table`. */
function withColumn<T>(
  tables: ReadonlyMap<string, ReadonlyMap<string, T>>,
  table: string,
  name: string,
  column: T,
) {
  const copy = new Map([...tables].map(([key, columns]) => [key, new Map(columns)]));
  copy.get(table)?.set(name, column);
  return copy;
}

describe('schema drift: db/schema.ts against the migrated database', () => {
  let database: Database;
  let stored: Map<string, Map<string, StoredColumn>>;
  let declared: Map<string, Map<string, DeclaredColumn>>;
  before(async () => {
    database = await createTestDatabase();
    const rows = await sql<{
      table_name: string;
      column_name: string;
      is_nullable: string;
      data_type: string;
    }>`
      select table_name, column_name, is_nullable, data_type
      from information_schema.columns
      where table_schema = current_schema()
      order by table_name, ordinal_position`.execute(database.db);
    stored = new Map();
    for (const row of rows.rows) {
      if (!stored.has(row.table_name)) stored.set(row.table_name, new Map());
      stored.get(row.table_name)?.set(row.column_name, {
        nullable: row.is_nullable === 'YES',
        dataType: row.data_type,
      });
    }
    declared = declaredTables();
  });
  after(() => database.close());

  test('the same tables on both sides', () => {
    const storedTables = [...stored.keys()].sort();
    // The embeddings table needs pgvector (db/optional-schema.ts): without it, it is absent.
    const expected = [...declared.keys()].filter((name) => stored.has(name) || name !== 'embeddings').sort();
    assert.deepEqual(storedTables, expected);
  });

  test('the same columns, nullability and a type that holds the declared one', () => {
    assert.deepEqual(driftProblems(declared, stored), []);
  });

  test('a column added on one side only, or declared with the wrong nullability, is caught', () => {
    assert.deepEqual(
      driftProblems(declared, withColumn(stored, 'agents', 'probe', { nullable: true, dataType: 'text' })),
      ['agents.probe: in the database, not in db/schema.ts'],
    );
    assert.deepEqual(
      driftProblems(withColumn(declared, 'agents', 'probe', { nullable: true, kind: 'string' }), stored),
      ['agents.probe: in db/schema.ts, not in the database'],
    );
    assert.deepEqual(
      driftProblems(withColumn(declared, 'agents', 'name', { nullable: true, kind: 'number' }), stored),
      [
        'agents.name: not null in the database, nullable in db/schema.ts',
        'agents.name: text in the database, number in db/schema.ts',
      ],
    );
  });

  test('a migration that adds a column the types lack is caught', async () => {
    await sql`alter table agents add column drift_probe text`.execute(database.db);
    try {
      const rows = await sql<{ column_name: string; is_nullable: string; data_type: string }>`
        select column_name, is_nullable, data_type from information_schema.columns
        where table_schema = current_schema() and table_name = 'agents'`.execute(database.db);
      const agents = new Map(
        rows.rows.map((row) => [
          row.column_name,
          { nullable: row.is_nullable === 'YES', dataType: row.data_type },
        ]),
      );
      assert.deepEqual(driftProblems(declared, new Map([['agents', agents]])), [
        'agents.drift_probe: in the database, not in db/schema.ts',
      ]);
    } finally {
      await sql`alter table agents drop column drift_probe`.execute(database.db);
    }
  });
});
