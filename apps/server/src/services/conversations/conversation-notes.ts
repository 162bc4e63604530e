import { CONVERSATION_NOTES_MAX, type TConversationNote } from '@service/contract';
import { AppError, notFound } from '../../errors/app-error.js';
import { newId } from '../../security/ids.js';
import { recordAudit } from '../audit.js';
import { actingUserId, iso, type TenantScope } from '../context.js';
import { listNotes } from './conversation-context.js';

/** The internal notes of a conversation of the workspace (404 otherwise), oldest first. */
export async function readNotes(
  options: Pick<TenantScope, 'db' | 'workspaceId'> & { conversationId: string },
): Promise<TConversationNote[]> {
  await findConversation(options);
  return listNotes(options);
}

/**
 * Adds an internal note (only the team sees it; no widget route reads this table). Any status,
 * closed included; at most CONVERSATION_NOTES_MAX per conversation (then 409). Audited without the text.
 */
export async function addNote(
  options: TenantScope & { conversationId: string; body: string },
): Promise<TConversationNote> {
  const authorId = actingUserId(options.actor);
  return options.db.transaction().execute(async (trx) => {
    // Locking the conversation serialises concurrent notes, so the cap holds.
    const found = await trx
      .selectFrom('conversations')
      .select('id')
      .where('workspace_id', '=', options.workspaceId)
      .where('id', '=', options.conversationId)
      .forUpdate()
      .executeTakeFirst();
    if (!found) throw notFound();
    const { count } = await trx
      .selectFrom('conversation_notes')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('conversation_id', '=', options.conversationId)
      .executeTakeFirstOrThrow();
    if (Number(count) >= CONVERSATION_NOTES_MAX) {
      throw new AppError('conflict', {
        message: `A conversation keeps at most ${CONVERSATION_NOTES_MAX} notes.`,
      });
    }
    const row = await trx
      .insertInto('conversation_notes')
      .values({
        id: newId(),
        workspace_id: options.workspaceId,
        conversation_id: options.conversationId,
        author_user_id: authorId,
        body: options.body,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      workspaceId: options.workspaceId,
      actor: options.actor,
      action: 'conversation.note_added',
      target: { type: 'conversation', id: options.conversationId },
      metadata: { note_id: row.id, length: row.body.length },
      requestId: options.requestId,
    });
    const author = authorId
      ? await trx.selectFrom('users').select(['name', 'email']).where('id', '=', authorId).executeTakeFirst()
      : undefined;
    return {
      id: row.id,
      body: row.body,
      author_user_id: row.author_user_id,
      author_name: author ? author.name || author.email : null,
      created_at: iso(row.created_at),
    };
  });
}

async function findConversation(
  options: Pick<TenantScope, 'db' | 'workspaceId'> & { conversationId: string },
) {
  const found = await options.db
    .selectFrom('conversations')
    .select('id')
    .where('workspace_id', '=', options.workspaceId)
    .where('id', '=', options.conversationId)
    .executeTakeFirst();
  if (!found) throw notFound();
}
