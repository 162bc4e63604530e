import { VISITOR_TYPING_WINDOW_SECONDS } from '@service/contract';
import { AppError, notFound } from '../../errors/app-error.js';
import { actingUserId, type TenantScope } from '../context.js';
import { publishTyping } from './admin-events.js';

/**
 * The operator holding a conversation says they are (or stopped) typing: the widget's poll shows
 * it for {@link VISITOR_TYPING_WINDOW_SECONDS} seconds, the workspace's streams get a `typing`
 * signal (not stored). Only the user holding the claim may (409 otherwise, 404 for a conversation
 * of another workspace); a token that acts for no user is a 403. Not audited: it changes nothing
 * but a transient hint.
 */
export async function setOperatorTyping(
  scope: TenantScope & { conversationId: string; typing: boolean },
): Promise<{ typing: boolean }> {
  const userId = actingUserId(scope.actor);
  if (!userId) throw new AppError('forbidden', { message: 'This token does not act for a user.' });
  const now = scope.clock.now();
  const row = await scope.db
    .updateTable('conversations')
    .set({ operator_typing_at: scope.typing ? now : null })
    .where('workspace_id', '=', scope.workspaceId)
    .where('id', '=', scope.conversationId)
    .where('status', '=', 'claimed')
    .where('claimed_by_user_id', '=', userId)
    .returning(['agent_id'])
    .executeTakeFirst();
  if (!row) {
    const exists = await scope.db
      .selectFrom('conversations')
      .select('id')
      .where('workspace_id', '=', scope.workspaceId)
      .where('id', '=', scope.conversationId)
      .executeTakeFirst();
    if (!exists) throw notFound();
    throw new AppError('conflict', {
      message: 'Only the operator holding this conversation can type in it.',
    });
  }
  await publishTyping(scope.db, scope.workspaceId, {
    type: 'typing',
    at: now.toISOString(),
    conversation_id: scope.conversationId,
    agent_id: row.agent_id,
    who: 'operator',
    user_id: userId,
    typing: scope.typing,
  });
  return { typing: scope.typing };
}

/** Whether the widget shows the operator typing: they said so within the typing window. */
export function isOperatorTyping(operatorTypingAt: Date | null, now: Date): boolean {
  return (
    operatorTypingAt !== null &&
    now.getTime() - operatorTypingAt.getTime() <= VISITOR_TYPING_WINDOW_SECONDS * 1000
  );
}
