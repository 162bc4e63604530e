/** Renders a command's result: JSON with `--json`, otherwise short human text. */
export function formatResult(command: string, result: unknown, json: boolean): string {
  if (json) return JSON.stringify(result);
  const at = (...path: string[]) => read(result, path);
  switch (command) {
    case 'bootstrap':
      return [
        `Created ${at('user', 'email')} (${at('user', 'id')}), owner of workspace "${at('workspace', 'name')}" ` +
          `(${at('workspace', 'id')}, slug ${at('workspace', 'slug')}).`,
        'Admin API token (shown once; store it now):',
        `  ${at('admin_token')}`,
      ].join('\n');
    case 'token:create':
      return [
        `Created token "${at('name')}" (${at('id')}) with abilities ${at('abilities')}.`,
        'Token (shown once; store it now):',
        `  ${at('token')}`,
        `Shopper signing secret: ${at('shopper_signing_secret')}`,
      ].join('\n');
    case 'migrate':
      return at('applied') === ''
        ? `Nothing to migrate; database is at ${at('current')}.`
        : `Applied migrations ${at('applied')}; database is at ${at('current')}.`;
    default:
      return JSON.stringify(result, null, 2);
  }
}

/** Reads a nested value as text ('' when absent); arrays are joined with commas. */
function read(value: unknown, path: string[]): string {
  let current: unknown = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || !(key in current)) return '';
    current = (current as Record<string, unknown>)[key];
  }
  if (Array.isArray(current)) return current.join(', ');
  return current === null || current === undefined ? '' : String(current);
}
