import type { TKbSettings, TKbSettingsUpdate } from '@service/contract';
import type { WorkspaceRow } from '../../db/schema.js';
import { notFound, validationError } from '../../errors/app-error.js';
import { KB_PATH } from '../../kb/kb-paths.js';
import { recordAudit } from '../audit.js';
import type { TenantScope } from '../context.js';

type SettingsRow = Pick<
  WorkspaceRow,
  'slug' | 'kb_title' | 'kb_logo_url' | 'kb_color' | 'kb_widget_agent_id'
>;

function toKbSettings(row: SettingsRow, publicBaseUrl: string | undefined): TKbSettings {
  return {
    title: row.kb_title,
    logo_url: row.kb_logo_url,
    color: row.kb_color,
    widget_agent_id: row.kb_widget_agent_id,
    url: `${publicBaseUrl ?? ''}${KB_PATH}/${row.slug}`,
  };
}

const SETTINGS_COLUMNS = ['slug', 'kb_title', 'kb_logo_url', 'kb_color', 'kb_widget_agent_id'] as const;

/** The workspace's public KB settings. */
export async function getKbSettings(
  scope: Pick<TenantScope, 'db' | 'workspaceId'> & { publicBaseUrl: string | undefined },
): Promise<TKbSettings> {
  const row = await scope.db
    .selectFrom('workspaces')
    .select(SETTINGS_COLUMNS)
    .where('id', '=', scope.workspaceId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return toKbSettings(row, scope.publicBaseUrl);
}

/**
 * Changes the workspace's public KB settings (partial; null clears); audited. The widget agent
 * must be one of this workspace's agents; every other id (another tenant's included) is a 422 on
 * `widget_agent_id`, the same answer as an unknown one.
 */
export async function updateKbSettings(
  scope: TenantScope & { publicBaseUrl: string | undefined },
  input: TKbSettingsUpdate,
): Promise<TKbSettings> {
  return scope.db.transaction().execute(async (trx) => {
    if (input.widget_agent_id !== undefined && input.widget_agent_id !== null) {
      const agent = await trx
        .selectFrom('agents')
        .select('id')
        .where('workspace_id', '=', scope.workspaceId)
        .where('id', '=', input.widget_agent_id)
        .executeTakeFirst();
      if (!agent) throw validationError({ widget_agent_id: ['No agent of this workspace has this id.'] });
    }
    const row = await trx
      .updateTable('workspaces')
      .set({
        ...(input.title !== undefined && { kb_title: input.title }),
        ...(input.logo_url !== undefined && { kb_logo_url: input.logo_url }),
        ...(input.color !== undefined && { kb_color: input.color?.toLowerCase() ?? null }),
        ...(input.widget_agent_id !== undefined && { kb_widget_agent_id: input.widget_agent_id }),
        updated_at: scope.clock.now(),
      })
      .where('id', '=', scope.workspaceId)
      .returning(SETTINGS_COLUMNS)
      .executeTakeFirst();
    if (!row) throw notFound();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'kb_settings.updated',
      target: { type: 'workspace', id: scope.workspaceId },
      metadata: { fields: Object.keys(input).sort() },
      requestId: scope.requestId,
    });
    return toKbSettings(row, scope.publicBaseUrl);
  });
}
