// Answer blocks: product cards, coupon cards, suggestion chips and the escalation button.
// Payloads come from the service's synced catalogue; every field is still checked before use.
import type { TCtx } from './context.js';
import { h, icon, on } from './dom.js';
import { t } from './locale.js';
import { safeUrl } from './markdown.js';
import { isRecord, str, type TBlock } from './types.js';

function money(ctx: TCtx, amount: string, currency: string): string {
  if (!amount) return '';
  try {
    return new Intl.NumberFormat(ctx.lang, { style: 'currency', currency }).format(Number(amount));
  } catch {
    return `${amount} ${currency}`.trim();
  }
}

function product(ctx: TCtx, p: Record<string, unknown>): HTMLElement {
  const { doc } = ctx;
  const url = safeUrl(str(p, 'url'), ['http:', 'https:']);
  const image = safeUrl(str(p, 'image_url'), ['http:', 'https:']);
  const currency = str(p, 'currency');
  const onSale = p.on_sale === true && str(p, 'sale_price') !== '';
  const price = money(ctx, onSale ? str(p, 'sale_price') : str(p, 'price'), currency);
  const regular = onSale ? money(ctx, str(p, 'regular_price') || str(p, 'price'), currency) : '';
  const name = url
    ? h(doc, 'a', { class: 't', href: url, target: '_blank', rel: 'noopener noreferrer' }, str(p, 'name'))
    : h(doc, 'span', { class: 't' }, str(p, 'name'));
  if (url) on(name, 'click', () => ctx.event('product_clicked', { url, name: str(p, 'name').slice(0, 200) }));
  const card = h(
    doc,
    'div',
    { class: 'c', 'data-testid': 'block-product' },
    image && h(doc, 'img', { src: image, alt: '', loading: 'lazy', referrerpolicy: 'no-referrer' }),
    h(
      doc,
      'div',
      { class: 'g' },
      name,
      h(doc, 'span', {}, price, regular && h(doc, 's', {}, regular), onSale && ` · ${t('sale')}`),
      typeof p.in_stock === 'boolean' &&
        h(doc, 'span', { class: 's' }, t(p.in_stock ? 'inStock' : 'outOfStock')),
    ),
  );
  return card;
}

function coupon(ctx: TCtx, p: Record<string, unknown>): HTMLElement {
  const { doc, api } = ctx;
  const code = str(p, 'code');
  const status = h(doc, 'span', { class: 's', role: 'status' });
  const copy = h(
    doc,
    'button',
    { type: 'button', class: 'btn sec', 'data-testid': 'coupon-copy' },
    icon(doc, 'copy'),
    t('copy'),
  );
  const apply = h(doc, 'button', { type: 'button', class: 'btn', 'data-testid': 'coupon-apply' }, t('apply'));
  on(copy, 'click', async () => {
    await navigator.clipboard.writeText(code);
    status.textContent = t('copied');
    ctx.event('coupon_copied', { code: code.slice(0, 100) });
  });
  on(apply, 'click', async () => {
    apply.disabled = true;
    const result = await api.call('POST', '/api/v1/widget/coupon/apply', { code });
    // Applied: the code waits in the visitor's cart, so Apply stays off and says so.
    if (result.ok) {
      apply.textContent = t('inCart');
      status.textContent = str(result.data, 'message');
      return;
    }
    apply.disabled = false;
    status.textContent = result.error === 'rate_limited' ? t('rateLimited') : result.message || t('failed');
  });
  return h(
    doc,
    'div',
    { class: 'c f', 'data-testid': 'block-coupon' },
    h(doc, 'span', { class: 't' }, str(p, 'label') || str(p, 'summary')),
    h(
      doc,
      'div',
      { class: 'row' },
      h(doc, 'span', { class: 'code' }, code),
      str(p, 'summary') || str(p, 'discount'),
    ),
    h(doc, 'div', { class: 'row' }, copy, ctx.features.coupons && apply),
    status,
  );
}

function suggestions(ctx: TCtx, p: Record<string, unknown>): HTMLElement {
  const row = h(ctx.doc, 'div', { class: 'row' });
  const items = Array.isArray(p.items) ? p.items : [];
  for (const item of items.slice(0, 6)) {
    if (typeof item !== 'string' || !item.trim()) continue;
    const chip = h(ctx.doc, 'button', { type: 'button', class: 'chip', 'data-testid': 'suggestion' }, item);
    on(chip, 'click', () => {
      ctx.event('suggestion_clicked', { text: item.slice(0, 500) });
      ctx.send(item);
    });
    row.append(chip);
  }
  return row;
}

function escalation(ctx: TCtx): HTMLElement {
  const button = h(
    ctx.doc,
    'button',
    { type: 'button', class: 'btn', 'data-testid': 'escalation' },
    t('human'),
  );
  on(button, 'click', () => {
    button.disabled = true;
    ctx.requestHuman();
  });
  return h(ctx.doc, 'div', { class: 'row' }, button);
}

/** Renders one block, or null for an unknown type or a malformed payload. */
export function renderBlock(ctx: TCtx, block: TBlock): HTMLElement | null {
  if (!isRecord(block.payload)) return null;
  switch (block.type) {
    case 'product':
      return product(ctx, block.payload);
    case 'coupon':
      return str(block.payload, 'code') ? coupon(ctx, block.payload) : null;
    case 'suggestions':
      return suggestions(ctx, block.payload);
    case 'escalation':
      return ctx.features.human ? escalation(ctx) : null;
    default:
      return null;
  }
}
