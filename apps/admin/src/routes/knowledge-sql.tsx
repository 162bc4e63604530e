import { DEFAULT_SQL_PORTS, type TSqlTestResult } from '@service/contract';
import type { TargetedEvent } from 'preact';
import { Field, FormMessage, TextArea } from '../components/field';
import type { Draft } from './knowledge-add';
import { plural } from './knowledge-shared';
export function SqlFields(props: {
  draft: Draft;
  set: (key: keyof Draft) => (value: string) => void;
  setSsl: (ssl: boolean) => void;
  errors: Record<string, string[]>;
}) {
  const { draft, set, errors } = props;
  return (
    <>
      <div class="field">
        <label for="field-engine">Database engine</label>
        <select
          id="field-engine"
          name="engine"
          value={draft.engine}
          onChange={(event: TargetedEvent<HTMLSelectElement>) => set('engine')(event.currentTarget.value)}
        >
          <option value="postgres">PostgreSQL</option>
          <option value="mysql">MySQL or MariaDB</option>
        </select>
      </div>
      <div class="field-row">
        <Field
          name="host"
          label="Host"
          value={draft.host}
          onInput={set('host')}
          errors={errors}
          hint="A name or IP address"
        />
        <Field
          name="port"
          label="Port"
          inputMode="numeric"
          value={draft.port}
          onInput={set('port')}
          errors={errors}
          hint={`${DEFAULT_SQL_PORTS[draft.engine]} if empty`}
        />
      </div>
      <div class="field-row">
        <Field
          name="database"
          label="Database"
          value={draft.database}
          onInput={set('database')}
          errors={errors}
        />
        <Field
          name="user"
          label="User"
          value={draft.user}
          onInput={set('user')}
          errors={errors}
          autocomplete="off"
        />
        <Field
          name="password"
          type="password"
          label="Password"
          value={draft.password}
          onInput={set('password')}
          errors={errors}
          autocomplete="new-password"
          hint="Stored encrypted, never shown again"
        />
      </div>
      <TextArea
        name="query"
        label="Query"
        rows={4}
        value={draft.query}
        onInput={set('query')}
        errors={errors}
        hint="One SELECT; it runs read-only"
      />
      <div class="field-row">
        <Field
          name="title_column"
          label="Title column (optional)"
          value={draft.titleColumn}
          onInput={set('titleColumn')}
          errors={errors}
        />
        <Field
          name="url_column"
          label="Link column (optional)"
          value={draft.urlColumn}
          onInput={set('urlColumn')}
          errors={errors}
        />
      </div>
      <label class="check">
        <input
          type="checkbox"
          checked={draft.ssl}
          onChange={(event: TargetedEvent<HTMLInputElement>) => props.setSsl(event.currentTarget.checked)}
        />
        <span>Connect with TLS (certificate checked)</span>
      </label>
    </>
  );
}

/** What the connection test found: the first rows, or why it could not run. */
export function SqlPreview(props: { result: TSqlTestResult }) {
  const { result } = props;
  if (!result.ok)
    return <FormMessage kind="error">{result.reason ?? 'The query could not run.'}</FormMessage>;
  return (
    <div class="sql-preview" role="status">
      <p>
        Connected.{' '}
        {result.rows.length === 0
          ? 'The query returned no rows.'
          : `The first ${plural(result.rows.length, 'row')}:`}
      </p>
      {result.rows.length > 0 ? (
        <div class="preview-scroll">
          <table aria-label="Query preview">
            <thead>
              <tr>
                {result.columns.map((column) => (
                  <th key={column} scope="col">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {result.rows.map((row, index) => (
                <tr key={index}>
                  {result.columns.map((column) => (
                    <td key={column}>{row[column] ?? ''}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}
