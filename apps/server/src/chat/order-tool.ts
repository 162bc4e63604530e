import { z } from 'zod';
import type { WidgetCaller } from '../services/widget/widget-caller.js';
import { lookupOrders } from '../site-calls/plugin-client.js';
import type { ChatDeps } from './chat-deps.js';
import type { ChatTool } from './model-turn.js';

/** Orders one lookup returns at most. */
const ORDER_LOOKUP_LIMIT = 5;

const ZArguments = z.object({ order_number: z.string().trim().max(64).optional() }).catch({});

/**
 * The `lookup_order` tool, offered only for a verified shopper (a valid shopper token at
 * init). It asks the site for that shopper's orders only — the `wp_user_id` comes from the
 * verified token, never from the model or the visitor — and gives the model a summary.
 */
export function orderTools(options: {
  deps: Pick<ChatDeps, 'db' | 'config' | 'log'>;
  caller: WidgetCaller;
}): ChatTool[] {
  const { caller } = options;
  const userId = caller.conversation.shopper_wp_user_id;
  if (caller.conversation.shopper_verified_at === null || userId === null) return [];
  return [
    {
      spec: {
        name: 'lookup_order',
        description:
          "Look up the signed-in shopper's recent orders (status, items, totals, tracking). " +
          'Pass order_number to find one order. Only this shopper’s own orders are ever returned.',
        parameters: {
          type: 'object',
          properties: {
            order_number: { type: 'string', description: 'An order number the shopper mentioned' },
          },
          additionalProperties: false,
        },
      },
      async run(argumentsJson) {
        let parsed: unknown = {};
        try {
          parsed = JSON.parse(argumentsJson || '{}');
        } catch {
          parsed = {};
        }
        const args = ZArguments.parse(parsed);
        const result = await lookupOrders({
          db: options.deps.db,
          workspaceId: caller.workspaceId,
          agentId: caller.agent.id,
          wpUserId: Number(userId),
          limit: ORDER_LOOKUP_LIMIT,
          ...(args.order_number ? { orderNumber: args.order_number } : {}),
          safeUrlAllow: options.deps.config.safeUrlAllow,
        });
        if (!result.ok) {
          options.deps.log.warn({ kind: result.kind, reason: result.message }, 'order lookup failed');
          return JSON.stringify({ error: 'The shop could not be reached to look up orders right now.' });
        }
        if (result.data.note === 'commerce_inactive') {
          return JSON.stringify({
            error: "The shop's order system is not active, so orders cannot be looked up.",
          });
        }
        return JSON.stringify({
          count: result.data.count,
          orders: result.data.orders.map((order) => ({
            number: order.number,
            status: order.status,
            total: `${order.total} ${order.currency}`,
            date: order.date_created,
            items: order.items.map((item) => `${item.qty} × ${item.name}`),
            tracking_url: order.tracking_url || null,
            order_url: order.order_url,
          })),
        });
      },
    },
  ];
}
