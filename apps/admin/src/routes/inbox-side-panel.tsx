import type { TConversationDetail, TTimelineEntry } from '@service/contract';
import { dateText } from '../date-text';

const TIMELINE_TEXT: Record<TTimelineEntry['kind'], string> = {
  created: 'Conversation started',
  handoff_requested: 'Visitor asked for a human',
  claimed: 'Claimed',
  released: 'Released to the bot',
  closed: 'Closed',
  note: 'Note added',
  rated: 'Visitor rated the conversation',
};

/** What the operator knows about the visitor: page, language, rating, leads, and the timeline. */
export function InboxSidePanel(props: { detail: TConversationDetail }) {
  const { detail } = props;
  const rating = detail.satisfaction.rating;
  return (
    <aside class="inbox-side" aria-label="About this conversation">
      <dl class="inbox-facts">
        <dt>Page</dt>
        <dd>
          {detail.page_url ? (
            <a href={detail.page_url} target="_blank" rel="noopener noreferrer">
              {detail.page_title || detail.page_url}
            </a>
          ) : (
            'Unknown'
          )}
        </dd>
        <dt>Language</dt>
        <dd>{detail.visitor_locale ?? 'Unknown'}</dd>
        <dt>Rating</dt>
        <dd>
          {rating === null
            ? 'Not rated'
            : rating === 'up'
              ? 'Helpful (thumbs up)'
              : 'Not helpful (thumbs down)'}
          {detail.satisfaction.comment ? <q class="inbox-comment">{detail.satisfaction.comment}</q> : null}
        </dd>
        <dt>Leads</dt>
        <dd>
          {detail.leads.length === 0 ? (
            'None'
          ) : (
            <ul class="inbox-leads">
              {detail.leads.map((lead) => (
                <li key={lead.id}>
                  {lead.name ? `${lead.name} · ` : ''}
                  <a href={`mailto:${lead.email}`}>{lead.email}</a>
                  {lead.phone ? ` · ${lead.phone}` : ''}
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
      <h3>Timeline</h3>
      <ol class="inbox-timeline">
        {detail.timeline.map((entry, index) => (
          <li key={`${entry.kind}-${entry.at}-${index}`}>
            <span>
              {TIMELINE_TEXT[entry.kind]}
              {entry.user_name ? ` by ${entry.user_name}` : ''}
            </span>
            <span class="muted">{dateText(entry.at)}</span>
          </li>
        ))}
      </ol>
    </aside>
  );
}
