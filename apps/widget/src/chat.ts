// The conversation: rendering messages, sending with a streamed answer, polling while an
// operator handles the conversation, and the typing signal.
import { renderBlock } from './blocks.js';
import type { TCtx } from './context.js';
import { h, on, safe } from './dom.js';
import { failureText } from './forms.js';
import { t } from './locale.js';
import { renderMarkdown, safeUrl } from './markdown.js';
import type { TSseFrame } from './sse.js';
import {
  isCitations,
  isMessages,
  isRecord,
  str,
  type TBlock,
  type TCitation,
  type TMessage,
  type TWelcome,
} from './types.js';
import type { TView } from './view.js';

const POLL_MS = 4000;
const TYPING_EVERY_MS = 3000;
const TYPING_IDLE_MS = 5000;

/** The live conversation state and its actions. */
export type TChat = ReturnType<typeof createChat>;

/** Creates the conversation controller over a view. */
export function createChat(ctx: TCtx, view: TView, isOpen: () => boolean) {
  const seen = new Set<string>();
  let lastId = '';
  let status = 'open';
  let busy = false;
  let answered = false;
  let pollTimer: ReturnType<typeof setTimeout> | undefined;

  let hello: TWelcome | undefined;
  let starters: HTMLElement | null = null;

  /** The numbered sources under an answer (title, site, link); a marker `[N]` highlights its entry. */
  function sourceList(el: HTMLElement, citations: TCitation[]): void {
    const { doc } = ctx;
    const list = h(doc, 'ol', { class: 'src', 'aria-label': t('sources'), 'data-testid': 'sources' });
    for (const { id, url: raw, title } of citations) {
      const url = raw && safeUrl(raw, ['http:', 'https:']);
      const site = url ? new URL(url).hostname.replace(/^www\./, '') : '';
      const link =
        url &&
        h(doc, 'a', { href: url, target: '_blank', rel: 'noopener noreferrer nofollow' }, title || site);
      if (link) on(link, 'click', () => ctx.event('citation_clicked', { id, url: url.slice(0, 500) }));
      list.append(
        h(
          doc,
          'li',
          { value: String(id), 'data-n': String(id), 'data-testid': 'source' },
          link || title,
          site && h(doc, 'span', { class: 's' }, ` · ${site}`),
        ),
      );
    }
    el.append(list);
    on(el, 'click', (event) => {
      const marker = event.target instanceof Element ? event.target.closest('.cite') : null;
      const item = marker && list.querySelector(`[data-n="${marker.getAttribute('data-n')}"]`);
      if (!item) return;
      for (const li of Array.from(list.children)) li.classList.toggle('hl', li === item);
      item.scrollIntoView({ block: 'nearest' });
    });
  }

  function fillAnswer(el: HTMLElement, text: string, citations: TCitation[], blocks: TBlock[]): void {
    el.append(renderMarkdown(ctx.doc, text, { citations }));
    if (citations.length > 0) sourceList(el, citations);
    const cards = blocks.map((block) => renderBlock(ctx, block)).filter((card) => card !== null);
    if (cards.length > 0) el.append(h(ctx.doc, 'div', { class: 'k' }, ...cards));
  }

  /** The agent's greeting and starter questions, on an empty conversation only. */
  function greet(): void {
    if (!hello || view.log.childElementCount > 0) return;
    const { doc } = ctx;
    if (hello.greeting)
      view.append(h(doc, 'div', { class: 'm a', 'data-testid': 'welcome' }, hello.greeting));
    starters = h(doc, 'div', { class: 'row st' });
    for (const text of hello.starters.slice(0, 4)) {
      const chip = h(doc, 'button', { type: 'button', class: 'chip', 'data-testid': 'starter' }, text);
      on(chip, 'click', () => {
        ctx.event('suggestion_clicked', { text: text.slice(0, 500), starter: true });
        ctx.send(text);
      });
      starters.append(chip);
    }
    view.append(starters);
  }

  /** Renders one stored message (history or polling). */
  function render(message: TMessage): void {
    if (message.id) {
      seen.add(message.id);
      lastId = message.id;
    }
    if (message.role === 'system') {
      view.notice(message.content);
      return;
    }
    const el = view.message(message.role);
    if (message.from_team) el.append(h(ctx.doc, 'span', { class: 'w' }, t('fromTeam')));
    if (message.role === 'visitor') el.append(message.content);
    else fillAnswer(el, message.content, message.citations, message.blocks);
    view.log.scrollTop = view.log.scrollHeight;
  }

  function schedulePoll(): void {
    if (pollTimer || !isOpen() || (status !== 'waiting' && status !== 'claimed')) return;
    pollTimer = setTimeout(safe(poll), POLL_MS);
  }

  function stopPolling(): void {
    clearTimeout(pollTimer);
    pollTimer = undefined;
  }

  /** The operator's typing dots, kept last in the log while the poll says they type. */
  let operatorDots: HTMLElement | null = null;
  function showOperatorTyping(on: boolean): void {
    if (!on) {
      operatorDots?.remove();
      operatorDots = null;
      return;
    }
    if (!operatorDots) operatorDots = view.message('operator');
    operatorDots.replaceChildren(view.dots());
    view.log.append(operatorDots);
  }

  async function poll(): Promise<void> {
    pollTimer = undefined;
    if (!isOpen()) return;
    const query = lastId ? `?after=${encodeURIComponent(lastId)}` : '';
    const result = await ctx.api.call('GET', `/v1/widget/conversation/messages${query}`);
    if (result.ok && isRecord(result.data)) {
      status = str(result.data, 'status') || status;
      const messages = result.data.messages;
      // Visitor messages are already on screen (typed here); only replies are new.
      if (isMessages(messages)) {
        for (const message of messages) {
          if (message.role === 'visitor' || seen.has(message.id)) seen.add(message.id);
          else render(message);
          lastId = message.id;
        }
      }
      showOperatorTyping(result.data.operator_typing === true);
    } else if (result.status === 422) {
      lastId = '';
    }
    schedulePoll();
  }

  async function send(raw: string): Promise<void> {
    const text = raw.trim().slice(0, 4000);
    if (!text || busy) return;
    busy = true;
    starters?.remove();
    view.sendButton.disabled = true;
    stopTyping();
    view.message('visitor').append(text);
    const bubble = view.message('assistant');
    const live = h(ctx.doc, 'span', {}, view.dots());
    bubble.append(live);
    view.log.setAttribute('aria-busy', 'true');
    let streamed = '';
    let done: unknown = null;
    let failed = false;
    const blocks: TBlock[] = [];
    const onFrame = (frame: TSseFrame) => {
      let data: unknown;
      try {
        data = JSON.parse(frame.data);
      } catch {
        return;
      }
      if (frame.event === 'token') {
        streamed += str(data, 't');
        live.textContent = streamed;
        view.log.scrollTop = view.log.scrollHeight;
      } else if (frame.event === 'block' && isRecord(data) && isRecord(data.payload)) {
        blocks.push({ type: str(data, 'type'), payload: data.payload });
      } else if (frame.event === 'done') {
        done = data;
      } else if (frame.event === 'error') {
        failed = true;
      }
    };
    const result = await ctx.api.stream('/v1/widget/messages/stream', { message: text }, onFrame);
    busy = false;
    view.sendButton.disabled = false;
    view.log.removeAttribute('aria-busy');
    if (isRecord(done) && done.held_by_operator === true) {
      bubble.remove();
      view.notice(t('humanWaiting'));
      if (status === 'open') status = 'claimed';
      schedulePoll();
    } else if (isRecord(done)) {
      live.remove();
      // An operator's saved correction, given verbatim: say it comes from the team.
      if (done.from_team === true) bubble.append(h(ctx.doc, 'span', { class: 'w' }, t('fromTeam')));
      const citations = isCitations(done.citations) ? done.citations : [];
      fillAnswer(bubble, str(done, 'text') || streamed, citations, blocks);
      const id = str(done, 'message_id');
      if (id) {
        seen.add(id);
        lastId = id;
      }
      answered = true;
      view.log.scrollTop = view.log.scrollHeight;
    } else {
      if (streamed) live.textContent = streamed;
      else bubble.remove();
      view.notice(failed ? t('failed') : failureText(result) || t('failed'));
    }
  }

  let typingSentAt = 0;
  let typingOn = false;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const typing = (value: boolean) => ctx.api.call('POST', '/v1/widget/typing', { typing: value });

  /** Call on every keystroke: at most one `typing: true` per 3 s, `false` after 5 s idle. */
  function noteTyping(): void {
    const now = Date.now();
    if (now - typingSentAt >= TYPING_EVERY_MS) {
      typingSentAt = now;
      typingOn = true;
      safe(typing)(true);
    }
    clearTimeout(idleTimer);
    idleTimer = setTimeout(safe(stopTyping), TYPING_IDLE_MS);
  }

  function stopTyping(): void {
    clearTimeout(idleTimer);
    if (!typingOn) return;
    typingOn = false;
    typingSentAt = 0;
    safe(typing)(false);
  }

  return {
    render,
    send,
    schedulePoll,
    stopPolling,
    noteTyping,
    stopTyping,
    /** Whether an answer came during this page view (for the satisfaction prompt). */
    hasAnswered: () => answered,
    /** Sets the conversation status (from init or request-human) and polls when needed. */
    setStatus(next: string): void {
      status = next;
      schedulePoll();
    },
    /** Sets the welcome and shows it when the conversation is empty. */
    welcome(next: TWelcome | undefined): void {
      hello = next;
      greet();
    },
    /** Forgets everything on screen (after clear or erase); a new conversation is welcomed. */
    reset(): void {
      stopPolling();
      view.log.replaceChildren();
      seen.clear();
      lastId = '';
      status = 'open';
      answered = false;
      greet();
    },
  };
}
