import {
  type THandoffRequestedData,
  type TLeadRecord,
  type TQualityRegressedData,
  type TWebhookFormat,
  ZHandoffRequestedData,
  ZLeadRecord,
  ZQualityRegressedData,
} from '@service/contract';
import { z } from 'zod';

/** What a delivery row's payload holds (the wire body is rebuilt from it, with the delivery id). */
export const ZStoredPayload = z.object({
  created_at: z.string(),
  // Each event's data is checked against its own schema.
  data: z.union([z.object({ lead: ZLeadRecord }), ZQualityRegressedData, ZHandoffRequestedData]),
});
export type TStoredPayload = z.infer<typeof ZStoredPayload>;

/** Longest visitor text a Slack body quotes (escaped, it stays under Slack's 3,000-character section). */
const SLACK_QUOTE_MAX = 500;
/** Longest name (agent, lead) a Slack body shows. */
const SLACK_NAME_MAX = 100;

/**
 * The body a delivery sends. `json`: `{id, event, created_at, data}` in this key order (jsonb
 * does not keep the order). `slack`: a Slack incoming-webhook body `{text, blocks}`: a plain
 * one-line fallback and a section in mrkdwn, with a link button to the console when the event
 * has one; visitor and lead text is escaped (`&`, `<`, `>`) so it cannot ping or link.
 */
export function webhookRequestBody(
  delivery: { id: string; event: string; payload: { created_at?: unknown; data?: unknown } },
  format: TWebhookFormat,
): string {
  if (format === 'json') {
    return JSON.stringify({
      id: delivery.id,
      event: delivery.event,
      created_at: delivery.payload.created_at,
      data: delivery.payload.data,
    });
  }
  return JSON.stringify(slackBody(delivery.event, delivery.payload.data));
}

type SlackBody = { text: string; blocks: object[] };

function slackBody(event: string, data: unknown): SlackBody {
  const handoff = ZHandoffRequestedData.safeParse(data);
  if (event === 'conversation.handoff_requested' && handoff.success) return slackHandoff(handoff.data);
  const lead = z.object({ lead: ZLeadRecord }).safeParse(data);
  if (event === 'lead.captured' && lead.success) return slackLead(lead.data.lead);
  const regressed = ZQualityRegressedData.safeParse(data);
  if (event === 'agent.quality_regressed' && regressed.success) return slackRegressed(regressed.data);
  return section(`Event ${slackEscape(event)}`);
}

function slackHandoff(data: THandoffRequestedData): SlackBody {
  const agent = slackEscape(cut(data.agent_name, SLACK_NAME_MAX));
  const online =
    data.operators_online > 0
      ? `${data.operators_online} operator(s) online`
      : 'nobody is online in the console';
  const headline = `A visitor of ${agent} asks for a human (${online}).`;
  const quote =
    data.last_visitor_message === null
      ? ''
      : `\n${slackQuote(slackEscape(cut(data.last_visitor_message, SLACK_QUOTE_MAX)))}`;
  const page = data.page_url === null ? '' : `\nPage: ${slackEscape(cut(data.page_url, 300))}`;
  return {
    text: `${headline} Open: ${slackEscape(data.console_url)}`,
    blocks: [
      {
        type: 'section',
        text: { type: 'mrkdwn', text: `*${headline}*${quote}${page}` },
        accessory: {
          type: 'button',
          text: { type: 'plain_text', text: 'Open the conversation' },
          url: data.console_url,
          action_id: 'open_conversation',
        },
      },
    ],
  };
}

function slackLead(lead: TLeadRecord): SlackBody {
  const who = [lead.email, lead.name, lead.phone]
    .filter((part) => part !== '')
    .map((part) => slackEscape(cut(part, SLACK_NAME_MAX)))
    .join(', ');
  return section(`New lead captured: ${who}`);
}

function slackRegressed(data: TQualityRegressedData): SlackBody {
  return section(
    `Answer quality of agent ${slackEscape(data.agent_id)} regressed on ${data.regressions.length} question(s) (run ${slackEscape(data.run_id)}).`,
  );
}

function section(text: string): SlackBody {
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

/** Escapes Slack's mrkdwn control characters (`&`, `<`, `>`): text shows as written, never as a link or mention. */
export function slackEscape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Each line as a Slack quote. */
function slackQuote(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => `>${line}`)
    .join('\n');
}

function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}
