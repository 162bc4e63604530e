import { randomBytes } from 'node:crypto';
import { DEFAULT_THEME } from '@service/contract';
import type { ConversationStatus, MessageRole, RetrievedChunk } from '../../src/db/schema-conversations.js';
import { newId } from '../../src/security/ids.js';
import { createApiToken } from '../../src/services/accounts/api-tokens.js';
import type { Tenant, TestApp } from './test-app.js';

/** A message to seed; `createdAt` defaults to the database's now(). */
export type SeedMessage = {
  role: MessageRole;
  content: string;
  createdAt?: Date;
  authorUserId?: string | null;
  citations?: Array<{ id: number; url: string | null; title: string }>;
};

/** An answer turn to seed; it refers to messages by their index in `messages`. */
export type SeedAnswerTurn = {
  question: string;
  answer: string;
  questionIndex?: number;
  answerIndex?: number;
  retrieved?: RetrievedChunk[];
  outcome?: string;
  provider?: string;
  latencyMs?: number;
};

/** What to seed: a visitor, one conversation in the given state, its messages and answer turns. */
export type SeedConversation = {
  workspaceId: string;
  agentId: string;
  status?: ConversationStatus;
  claimedByUserId?: string | null;
  /** A string keeps microseconds, which a Date cannot. */
  createdAt?: Date | string;
  humanRequestedAt?: Date | null;
  visitorTypingAt?: Date | null;
  satisfactionRating?: number | null;
  satisfactionComment?: string | null;
  shopperVerifiedAt?: Date | null;
  messages?: SeedMessage[];
  answerTurns?: SeedAnswerTurn[];
};

/** Ids of the seeded rows. */
export type SeededConversation = { visitorId: string; conversationId: string; messageIds: string[] };

/** Inserts an agent straight into the database (no audit row, no indexing). */
export async function seedAgent(t: TestApp, workspaceId: string, name = 'Support bot'): Promise<string> {
  const id = newId();
  await t.database.db
    .insertInto('agents')
    .values({ id, workspace_id: workspaceId, name, theme: JSON.stringify(DEFAULT_THEME) })
    .execute();
  return id;
}

/** Seeds a visitor, a conversation, its messages (in order) and answer turns directly in the database. */
export async function seedConversation(t: TestApp, input: SeedConversation): Promise<SeededConversation> {
  const db = t.database.db;
  const visitorId = newId();
  const conversationId = newId();
  await db
    .insertInto('visitors')
    .values({
      id: visitorId,
      workspace_id: input.workspaceId,
      agent_id: input.agentId,
      anon_id: `anon-${randomBytes(6).toString('hex')}`,
    })
    .execute();
  const claimed = input.status === 'claimed';
  await db
    .insertInto('conversations')
    .values({
      id: conversationId,
      workspace_id: input.workspaceId,
      agent_id: input.agentId,
      visitor_id: visitorId,
      status: input.status ?? 'open',
      claimed_by_user_id: input.claimedByUserId ?? null,
      claimed_at: claimed ? new Date() : null,
      human_requested_at: input.humanRequestedAt ?? null,
      visitor_typing_at: input.visitorTypingAt ?? null,
      satisfaction_rating: input.satisfactionRating ?? null,
      satisfaction_comment: input.satisfactionComment ?? null,
      shopper_verified_at: input.shopperVerifiedAt ?? null,
      ...(input.createdAt ? { created_at: input.createdAt } : {}),
    })
    .execute();
  const messageIds: string[] = [];
  let lastAt: Date | null = null;
  for (const message of input.messages ?? []) {
    const row = await db
      .insertInto('messages')
      .values({
        id: newId(),
        workspace_id: input.workspaceId,
        conversation_id: conversationId,
        role: message.role,
        content: message.content,
        citations: JSON.stringify(message.citations ?? []),
        author_user_id: message.authorUserId ?? null,
        ...(message.createdAt ? { created_at: message.createdAt } : {}),
      })
      .returning(['id', 'created_at'])
      .executeTakeFirstOrThrow();
    messageIds.push(row.id);
    lastAt = row.created_at;
  }
  if (lastAt) {
    await db
      .updateTable('conversations')
      .set({ last_message_at: lastAt })
      .where('id', '=', conversationId)
      .execute();
  }
  for (const turn of input.answerTurns ?? []) {
    await db
      .insertInto('answer_turns')
      .values({
        id: newId(),
        workspace_id: input.workspaceId,
        agent_id: input.agentId,
        conversation_id: conversationId,
        question_message_id:
          turn.questionIndex === undefined ? null : (messageIds[turn.questionIndex] ?? null),
        answer_message_id: turn.answerIndex === undefined ? null : (messageIds[turn.answerIndex] ?? null),
        question: turn.question,
        answer: turn.answer,
        retrieved: JSON.stringify(turn.retrieved ?? []),
        outcome: turn.outcome ?? 'answered',
        provider: turn.provider ?? 'fake',
        latency_ms: turn.latencyMs ?? 42,
      })
      .execute();
  }
  return { visitorId, conversationId, messageIds };
}

/** A second admin of a tenant's workspace: a user, their membership and an admin token acting for them. */
export async function seedOperator(
  t: TestApp,
  tenant: Tenant,
): Promise<{ userId: string; auth: Record<string, string> }> {
  const userId = newId();
  await t.database.db
    .insertInto('users')
    .values({
      id: userId,
      email: `operator-${randomBytes(4).toString('hex')}@example.com`,
      password_hash: 'not-a-real-hash',
      default_workspace_id: tenant.workspace.id,
    })
    .execute();
  await t.database.db
    .insertInto('memberships')
    .values({ workspace_id: tenant.workspace.id, user_id: userId, role: 'admin' })
    .execute();
  const token = await createApiToken(
    { db: t.database.db, clock: t.clock, workspaceId: tenant.workspace.id, actor: { type: 'cli', id: null } },
    { name: 'operator', abilities: ['admin'], createdByUserId: userId },
  );
  return { userId, auth: { authorization: `Bearer ${token.token}` } };
}
