import type { QUESTION_REASONS } from '@service/contract';
import { sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';

type Reason = (typeof QUESTION_REASONS)[number];

/**
 * Records that the visitor asked for a human (`handoff`) or rated an answer down
 * (`rated_down`): the conversation's last answer turn, or the turn of the answer `messageId`,
 * becomes (or joins) a recorded question with its chunks. One statement; nothing when the
 * conversation has no turn yet. Returns whether a turn was found.
 */
export async function recordTurnQuestion(
  db: Queryable,
  input: {
    id: string;
    workspaceId: string;
    conversationId: string;
    reason: Reason;
    messageId?: string | undefined;
    now: Date;
  },
): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    insert into agent_questions (id, workspace_id, agent_id, conversation_id, turn_id,
      question_message_id, answer_message_id, question, answer, reasons, retrieved, created_at, updated_at)
    select ${input.id}, t.workspace_id, t.agent_id, t.conversation_id, t.id, t.question_message_id,
      t.answer_message_id, t.question, t.answer, array[${input.reason}]::text[], t.retrieved,
      ${input.now}, ${input.now}
    from answer_turns t
    where t.workspace_id = ${input.workspaceId} and t.conversation_id = ${input.conversationId}
      ${input.messageId === undefined ? sql`` : sql`and t.answer_message_id = ${input.messageId}`}
    order by t.created_at desc, t.id desc
    limit 1
    on conflict (turn_id) do update set
      reasons = array(select distinct r from unnest(agent_questions.reasons || excluded.reasons) as r order by r),
      updated_at = excluded.updated_at
    returning id`.execute(db);
  return rows.length > 0;
}
