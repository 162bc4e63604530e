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
    case 'demo:connect':
      return [
        `Demo agent ${at('agent_id')} now accepts the shop's origin.`,
        'Site integration token (shown once; store it now):',
        `  ${at('token')}`,
      ].join('\n');
    case 'migrate':
      return at('applied') === ''
        ? `Nothing to migrate; database is at ${at('current')}.`
        : `Applied migrations ${at('applied')}; database is at ${at('current')}.`;
    case 'user:byok':
    case 'user:platform-admin':
      return (
        `${at('email')}: ${command === 'user:byok' ? 'BYOK' : 'platform operator'} ` +
        `${at('new') === 'true' ? 'on' : 'off'} (was ${at('old') === 'true' ? 'on' : 'off'}); ` +
        `audited in ${at('audited_in')} workspace(s).`
      );
    case 'backup':
      return [
        `Backup written to ${at('file')} (${at('bytes')} bytes, mode 0600; migration ${at('migration')}).`,
        at('key') === 'archive'
          ? 'It holds DATA_DIR/app.key: keep it as safe as the key itself.'
          : 'APP_KEY comes from the environment and is NOT in the backup: keep it with the backup, or its sealed secrets stay unreadable.',
      ].join('\n');
    case 'restore':
      return [
        `Restored into ${at('data_dir')} (migration ${at('migration')}). Start the service with DATA_DIR=${at('data_dir')}.`,
        ...(at('key') === 'archive'
          ? []
          : ['The backup holds no app.key: start the service with the APP_KEY the backup was taken with.']),
      ].join('\n');
    case 'eval':
      return formatEval(result);
    case 'key:rotate':
      return formatKeyRotation(result);
    default:
      return JSON.stringify(result, null, 2);
  }
}

/** The eval report: the metrics, then each miss with what was expected and the top hits found. */
function formatEval(result: unknown): string {
  const at = (...path: string[]) => read(result, path);
  const percent = (key: string) => `${(Number(at(key)) * 100).toFixed(1)}%`;
  const vectorErrors = Number(at('vector_errors'));
  const lines = [
    `Agent ${at('agent_id')} (workspace ${at('workspace_id')}), ${at('questions')} questions, ` +
      `top ${at('limit')} hits, ${at('vector') === 'true' ? 'with' : 'without'} vector retrieval` +
      (vectorErrors > 0 ? ` (${vectorErrors} questions could not be embedded)` : '') +
      '.',
    `  recall@1  ${percent('recall_at_1')}`,
    `  recall@5  ${percent('recall_at_5')}`,
    `  MRR@10    ${Number(at('mrr')).toFixed(3)}`,
  ];
  const misses = isRecord(result) && Array.isArray(result.misses) ? result.misses : [];
  lines.push(
    '',
    misses.length === 0 ? 'No misses in the top 5.' : `Misses (not in the top 5): ${misses.length}`,
  );
  for (const miss of misses) {
    const get = (...path: string[]) => read(miss, path);
    const label = get('id') === '' ? '' : `[${get('id')}] `;
    const rank = get('rank') === '' ? 'not retrieved' : `found at rank ${get('rank')}`;
    const pages = isRecord(miss) && isRecord(miss.expected) ? miss.expected : {};
    const pageList = [pages.urls, pages.document_ids].flatMap((list) => (Array.isArray(list) ? list : []));
    const expected =
      get('expected', 'url') !== ''
        ? `url ${get('expected', 'url')}`
        : pageList.length > 0
          ? `one of ${pageList.join(', ')}`
          : `text "${get('expected', 'text')}"`;
    lines.push('', `- ${label}${get('question')}`, `    expected ${expected} (${rank})`);
    const top = isRecord(miss) && Array.isArray(miss.top) ? miss.top : [];
    if (top.length === 0) lines.push('    no hits');
    top.forEach((hit: unknown, index) => {
      const url = read(hit, ['url']);
      lines.push(`    ${index + 1}. ${read(hit, ['title'])}${url === '' ? '' : ` <${url}>`}`);
    });
  }
  return lines.join('\n');
}

/** The rotation summary, the new key when it was generated and must be stored, and what to do next. */
function formatKeyRotation(result: unknown): string {
  const at = (...path: string[]) => read(result, path);
  const resealed = Number(at('resealed'));
  const workspaces = Number(at('workspaces'));
  const lines = [
    `${at('resumed') === 'true' ? 'Finished the interrupted rotation: re' : 'Re'}-sealed ${resealed} ` +
      `secret${resealed === 1 ? '' : 's'} in ${workspaces} workspace${workspaces === 1 ? '' : 's'}; ` +
      `${at('already_current')} already sealed with the new key.`,
  ];
  if (at('new_key') !== '') lines.push('New APP_KEY (shown once; store it now):', `  ${at('new_key')}`);
  const steps = isRecord(result) && Array.isArray(result.next_steps) ? result.next_steps : [];
  if (steps.length > 0)
    lines.push('Next:', ...steps.map((step: unknown, index) => `  ${index + 1}. ${String(step)}`));
  return lines.join('\n');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
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
