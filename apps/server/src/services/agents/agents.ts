import { DEFAULT_THEME, type TAgent, type TAgentCreate, type TAgentUpdate } from '@service/contract';
import type { AgentRow, StoredTheme } from '../../db/schema.js';
import { notFound } from '../../errors/app-error.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { newId } from '../../security/ids.js';
import { recordAudit } from '../audit.js';
import { assertPlanAllows } from '../billing/plan-limits.js';
import { iso, type TenantScope } from '../context.js';
import { reindexAgentLanguageDocuments } from '../knowledge/documents.js';
import { type KbIndexing, syncKbForAgent } from '../knowledge/kb-index.js';
import { forgetWidgetAgents } from '../widget/widget-agent-cache.js';
import {
  DEFAULT_WIDGET_FEATURES,
  storedBehaviorRules,
  storedWidgetFeatures,
} from '../widget/widget-caller.js';
import { editableWelcome } from '../widget/widget-welcome.js';

/** Reads one agent of the workspace; another workspace's agent is a 404. */
export async function getAgent(
  scope: Pick<TenantScope, 'db' | 'workspaceId'>,
  agentId: string,
): Promise<TAgent> {
  const row = await scope.db
    .selectFrom('agents')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .where('id', '=', agentId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return toAgent(row);
}

/**
 * Creates an agent in the workspace and records it in the audit log; the workspace's published
 * knowledge-base articles are queued for indexing for it in the same transaction.
 */
export async function createAgent(scope: TenantScope & KbIndexing, input: TAgentCreate): Promise<TAgent> {
  const theme: StoredTheme = { ...DEFAULT_THEME, ...input.theme };
  return scope.db.transaction().execute(async (trx) => {
    await assertPlanAllows(trx, scope.workspaceId, { agents: 1 });
    const row = await trx
      .insertInto('agents')
      .values({
        id: newId(),
        workspace_id: scope.workspaceId,
        name: input.name,
        site_type: input.site_type ?? 'generic',
        language_default: input.language_default ?? null,
        is_published: input.is_published ?? false,
        allowed_origins: input.allowed_origins ?? [],
        theme: JSON.stringify(theme),
        system_prompt: input.system_prompt ?? '',
        behavior_rules: JSON.stringify(input.behavior_rules ?? []),
        auto_index_pages: input.auto_index_pages ?? false,
        widget_features: JSON.stringify({ ...DEFAULT_WIDGET_FEATURES, ...input.widget_features }),
        welcome: input.welcome ? JSON.stringify(input.welcome) : null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'agent.created',
      target: { type: 'agent', id: row.id },
      metadata: { name: row.name },
      requestId: scope.requestId,
    });
    await syncKbForAgent(trx, scope.queue, {
      workspaceId: scope.workspaceId,
      clock: scope.clock,
      agentId: row.id,
      publicBaseUrl: scope.publicBaseUrl,
      embeddingsKey: scope.embeddingsKey,
    });
    return toAgent(row);
  });
}

/** Applies a partial update (theme fields merge into the stored theme); audited with the changed keys. */
export async function updateAgent(
  scope: TenantScope & { queue: JobQueue },
  agentId: string,
  input: TAgentUpdate,
): Promise<TAgent> {
  const written = await scope.db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('agents')
      .selectAll()
      .where('workspace_id', '=', scope.workspaceId)
      .where('id', '=', agentId)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw notFound();
    const row = await trx
      .updateTable('agents')
      .set({
        ...(input.name !== undefined && { name: input.name }),
        ...(input.site_type !== undefined && { site_type: input.site_type }),
        ...(input.language_default !== undefined && { language_default: input.language_default }),
        ...(input.is_published !== undefined && { is_published: input.is_published }),
        ...(input.allowed_origins !== undefined && { allowed_origins: input.allowed_origins }),
        ...(input.system_prompt !== undefined && { system_prompt: input.system_prompt }),
        ...(input.theme !== undefined && { theme: JSON.stringify({ ...current.theme, ...input.theme }) }),
        ...(input.behavior_rules !== undefined && { behavior_rules: JSON.stringify(input.behavior_rules) }),
        ...(input.auto_index_pages !== undefined && { auto_index_pages: input.auto_index_pages }),
        ...(input.widget_features !== undefined && {
          widget_features: JSON.stringify({ ...storedWidgetFeatures(current), ...input.widget_features }),
        }),
        ...(input.welcome !== undefined && {
          welcome: input.welcome === null ? null : JSON.stringify(input.welcome),
        }),
        updated_at: scope.clock.now(),
      })
      .where('workspace_id', '=', scope.workspaceId)
      .where('id', '=', agentId)
      .returningAll()
      .executeTakeFirstOrThrow();
    // Documents without a language of their own are indexed in the agent's: rebuild them.
    if (row.language_default !== current.language_default) {
      await reindexAgentLanguageDocuments(trx, scope.queue, agentId);
    }
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'agent.updated',
      target: { type: 'agent', id: agentId },
      metadata: { fields: Object.keys(input).sort() },
      requestId: scope.requestId,
    });
    return toAgent(row);
  });
  forgetWidgetAgents();
  return written;
}

/** Deletes an agent (and, by cascade, everything that belongs to it); audited. */
export async function deleteAgent(scope: TenantScope, agentId: string): Promise<void> {
  await scope.db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('agents')
      .where('workspace_id', '=', scope.workspaceId)
      .where('id', '=', agentId)
      .returning(['id', 'name'])
      .executeTakeFirst();
    if (!row) throw notFound();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'agent.deleted',
      target: { type: 'agent', id: row.id },
      metadata: { name: row.name },
      requestId: scope.requestId,
    });
  });
  forgetWidgetAgents();
}

/** Converts a stored agent for the wire. */
export function toAgent(row: AgentRow): TAgent {
  return {
    id: row.id,
    name: row.name,
    site_type: row.site_type,
    language_default: row.language_default,
    is_published: row.is_published,
    allowed_origins: row.allowed_origins,
    theme: { ...DEFAULT_THEME, ...row.theme },
    system_prompt: row.system_prompt,
    behavior_rules: storedBehaviorRules(row),
    auto_index_pages: row.auto_index_pages,
    widget_features: storedWidgetFeatures(row),
    welcome: editableWelcome(row),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
