import type { TAgentAnalytics } from '@service/contract';
import type { ComponentChildren } from 'preact';
import { dayText } from './analytics-period';

/**
 * The analytics tables: the top questions, the most cited sources with the ratings of the
 * answers that cited them, and every day's numbers (the charts' text alternative).
 */
export function AnalyticsTables({ data }: { data: TAgentAnalytics }) {
  return (
    <>
      <div class="an-lists">
        <section class="card an-list" aria-labelledby="an-questions-title">
          <h2 id="an-questions-title">Top questions</h2>
          {data.top_questions.length === 0 ? (
            <p class="muted">No questions in this period.</p>
          ) : (
            <ScrollRegion label="Top questions table">
              <table class="an-table">
                <thead>
                  <tr>
                    <th scope="col">Question</th>
                    <th scope="col" class="num">
                      Asked
                    </th>
                    <th scope="col" class="num">
                      Unanswered
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.top_questions.map((row) => (
                    <tr key={row.question}>
                      <td class="an-text">{row.question}</td>
                      <td class="num">{row.asks}</td>
                      <td class="num">{row.unanswered}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
        </section>
        <section class="card an-list" aria-labelledby="an-sources-title">
          <h2 id="an-sources-title">Most cited sources</h2>
          <p class="muted an-hint">
            How often answers cited each page, and how their conversations were rated.
          </p>
          {data.top_sources.length === 0 ? (
            <p class="muted">No citations in this period.</p>
          ) : (
            <ScrollRegion label="Most cited sources table">
              <table class="an-table">
                <thead>
                  <tr>
                    <th scope="col">Source</th>
                    <th scope="col" class="num">
                      Cited
                    </th>
                    <th scope="col" class="num">
                      Rated up
                    </th>
                    <th scope="col" class="num">
                      Rated down
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.top_sources.map((row) => (
                    <tr key={`${row.url ?? ''}|${row.title}`}>
                      <td class="an-text">
                        {row.url && /^https?:\/\//i.test(row.url) ? (
                          <a href={row.url} target="_blank" rel="noopener noreferrer">
                            {row.title}
                          </a>
                        ) : (
                          row.title
                        )}
                      </td>
                      <td class="num">{row.cited}</td>
                      <td class="num">{row.rated_up}</td>
                      <td class={row.rated_down > row.rated_up ? 'num an-bad' : 'num'}>{row.rated_down}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
        </section>
      </div>
      <details class="card an-daily">
        <summary>
          <h2>Daily numbers</h2>
        </summary>
        <ScrollRegion label="Daily numbers table">
          <table class="an-table">
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col" class="num">
                  Conversations
                </th>
                <th scope="col" class="num">
                  Visitor messages
                </th>
                <th scope="col" class="num">
                  Bot only
                </th>
                <th scope="col" class="num">
                  Handed off
                </th>
                <th scope="col" class="num">
                  Unanswered
                </th>
                <th scope="col" class="num">
                  Rated up
                </th>
                <th scope="col" class="num">
                  Rated down
                </th>
              </tr>
            </thead>
            <tbody>
              {[...data.days].reverse().map((day) => (
                <tr key={day.day}>
                  <th scope="row">{dayText(day.day)}</th>
                  <td class="num">{day.conversations}</td>
                  <td class="num">{day.visitor_messages}</td>
                  <td class="num">{day.bot_only}</td>
                  <td class="num">{day.handed_off}</td>
                  <td class="num">{day.unanswered}</td>
                  <td class="num">{day.rated_up}</td>
                  <td class="num">{day.rated_down}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </details>
    </>
  );
}

/** A region that scrolls sideways when its table is wider than the screen, reachable by keyboard. */
function ScrollRegion(props: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus so keyboard users can scroll it (axe scrollable-region-focusable)
    <section class="an-scroll" tabIndex={0} aria-label={props.label}>
      {props.children}
    </section>
  );
}
