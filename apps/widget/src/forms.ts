// The lead form and the satisfaction prompt, both shown as cards in the message log.
import type { TResult } from './api.js';
import type { TCtx } from './context.js';
import { h, icon, on } from './dom.js';
import { type TKey, t } from './locale.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^[+()0-9 .-]*$/;

/** The text to show for a failed call: our wording for limits and the network, else the service's. */
export function failureText(result: TResult): string {
  if (result.ok) return '';
  if (result.error === 'rate_limited') return t('rateLimited');
  if (result.error === 'network') return t('network');
  if (result.error === 'stalled') return t('stalled');
  return result.message || t('failed');
}

function field(ctx: TCtx, key: TKey, type: string, autocomplete: string, max: string) {
  const input = h(ctx.doc, 'input', { type, autocomplete, maxlength: max, 'data-testid': `lead-${key}` });
  const error = h(ctx.doc, 'span', { class: 'e', role: 'alert' });
  return { input, error, label: h(ctx.doc, 'label', {}, t(key), input, error) };
}

/** The lead form (email required, name and phone optional); posts to `/v1/widget/leads`. */
export function leadForm(ctx: TCtx): HTMLElement {
  const { doc } = ctx;
  const email = field(ctx, 'email', 'email', 'email', '254');
  const name = field(ctx, 'name', 'text', 'name', '200');
  const phone = field(ctx, 'phone', 'tel', 'tel', '40');
  email.input.required = true;
  const status = h(doc, 'span', { class: 'e', role: 'alert' });
  const submit = h(
    doc,
    'button',
    { type: 'submit', class: 'btn', 'data-testid': 'lead-submit' },
    t('submit'),
  );
  const form = h(
    doc,
    'form',
    { class: 'c f', novalidate: true, 'data-testid': 'lead-form' },
    h(doc, 'span', { class: 't' }, t('leadTitle')),
    email.label,
    name.label,
    phone.label,
    status,
    h(doc, 'div', { class: 'row' }, submit),
  );
  on(form, 'submit', async (event) => {
    event.preventDefault();
    const values = {
      email: email.input.value.trim(),
      name: name.input.value.trim(),
      phone: phone.input.value.trim(),
    };
    email.error.textContent = EMAIL.test(values.email) ? '' : t('emailInvalid');
    phone.error.textContent = PHONE.test(values.phone) ? '' : t('phoneInvalid');
    status.textContent = '';
    if (email.error.textContent) return email.input.focus();
    if (phone.error.textContent) return phone.input.focus();
    submit.disabled = true;
    const result = await ctx.api.call('POST', '/v1/widget/leads', values);
    submit.disabled = false;
    if (!result.ok) {
      status.textContent = failureText(result);
      return;
    }
    form.replaceChildren(h(doc, 'span', { role: 'status' }, t('leadThanks')));
  });
  return form;
}

/** The satisfaction prompt: thumbs up or down, then an optional comment. */
export function satisfactionPrompt(ctx: TCtx): HTMLElement {
  const { doc, api } = ctx;
  const status = h(doc, 'span', { class: 'e', role: 'alert' });
  const rate = (rating: 'up' | 'down') => {
    const button = h(
      doc,
      'button',
      {
        type: 'button',
        class: `btn sec ${rating}`,
        'aria-label': t(rating === 'up' ? 'rateUp' : 'rateDown'),
      },
      icon(doc, 'thumb'),
    );
    button.setAttribute('data-testid', `rate-${rating}`);
    on(button, 'click', async () => {
      const result = await api.call('POST', '/v1/widget/satisfaction', { rating });
      if (!result.ok) {
        status.textContent = failureText(result);
        return;
      }
      const comment = h(doc, 'textarea', {
        rows: '2',
        maxlength: '1000',
        'aria-label': t('comment'),
        placeholder: t('comment'),
      });
      const send = h(doc, 'button', { type: 'button', class: 'btn' }, t('submit'));
      on(send, 'click', async () => {
        const text = comment.value.trim();
        if (!text) return;
        const saved = await api.call('POST', '/v1/widget/satisfaction', { rating, comment: text });
        if (saved.ok) card.replaceChildren(h(doc, 'span', { role: 'status' }, t('rateThanks')));
        else status.textContent = failureText(saved);
      });
      card.replaceChildren(
        h(doc, 'span', { role: 'status' }, t('rateThanks')),
        comment,
        status,
        h(doc, 'div', { class: 'row' }, send),
      );
      ctx.scroll();
    });
    return button;
  };
  const card = h(
    doc,
    'div',
    { class: 'c f', 'data-testid': 'satisfaction' },
    h(doc, 'span', { class: 't' }, t('rateQuestion')),
    h(doc, 'div', { class: 'row' }, rate('up'), rate('down')),
    status,
  );
  return card;
}
