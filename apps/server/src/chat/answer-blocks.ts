import type { TBlock, TCitation, TCoupon } from '@service/contract';
import type { AnswerSource } from './answer-context.js';
import { answerSuggestions } from './answer-suggestions.js';
import { couponSummary } from './coupon-summary.js';

/** Most product cards one answer shows. */
const MAX_PRODUCT_CARDS = 3;

/**
 * The citations of an answer: each `[N]` (or `[N, M]`) in the text that names a retrieved
 * source, once, in order of first mention. Numbers that name no source are ignored.
 */
export function extractCitations(text: string, sources: readonly AnswerSource[]): TCitation[] {
  const byId = new Map(sources.map((source) => [source.id, source]));
  const cited: TCitation[] = [];
  for (const match of text.matchAll(/\[(\d{1,2}(?:\s*,\s*\d{1,2})*)\]/g)) {
    for (const part of (match[1] ?? '').split(',')) {
      const source = byId.get(Number(part.trim()));
      if (source && !cited.some((citation) => citation.id === source.id)) {
        cited.push({ id: source.id, url: source.hit.url, title: source.hit.title });
      }
    }
  }
  return cited;
}

/** Whether `code` appears in the text as a whole token (codes are matched verbatim, case included). */
function mentions(text: string, code: string): boolean {
  const escaped = code.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^A-Za-z0-9_-])${escaped}($|[^A-Za-z0-9_-])`).test(text);
}

/**
 * The blocks that follow an answer: product cards for the products it cites, a coupon card
 * for each synced code it mentions (never a code the site did not sync), and the escalation
 * button when there was no answer and humans are available.
 */
export function answerBlocks(options: {
  text: string;
  citations: readonly TCitation[];
  sources: readonly AnswerSource[];
  coupons: readonly TCoupon[];
  hasAnswer: boolean;
  canEscalate: boolean;
  couponsEnabled: boolean;
  /** The visitor's language and the shop's currency (ISO 4217, null when unknown), for coupon cards. */
  language?: string;
  /** The visitor's question: follow-up chips must relate to it or to the cited sources. */
  question?: string;
  currency?: string | null;
}): TBlock[] {
  const blocks: TBlock[] = [];
  const citedIds = new Set(options.citations.map((citation) => citation.id));
  const shown = new Set<string>();
  for (const source of options.sources) {
    if (!source.product || !citedIds.has(source.id) || shown.has(source.hit.document_id)) continue;
    if (shown.size >= MAX_PRODUCT_CARDS) break;
    shown.add(source.hit.document_id);
    blocks.push({ type: 'product', payload: { ...source.product } });
  }
  if (options.couponsEnabled) {
    for (const coupon of options.coupons) {
      if (!mentions(options.text, coupon.code)) continue;
      blocks.push({
        type: 'coupon',
        payload: {
          code: coupon.code,
          label: coupon.label,
          discount: coupon.discount,
          summary: couponSummary(coupon, options.language ?? 'en', options.currency ?? null),
          expires_at: coupon.expires_at,
        },
      });
    }
  }
  if (!options.hasAnswer && options.canEscalate) {
    blocks.push({ type: 'escalation', payload: { action: 'request_human' } });
  }
  const suggestions = options.hasAnswer
    ? answerSuggestions({
        question: options.question ?? '',
        text: options.text,
        citations: options.citations,
        sources: options.sources,
      })
    : [];
  if (suggestions.length > 0) blocks.push({ type: 'suggestions', payload: { items: suggestions } });
  return blocks;
}
