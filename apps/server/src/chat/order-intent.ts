// Recognises "where is my order?"-style questions for the offline responder, which has no
// model to decide when to call the order lookup. Deliberately narrow: general questions about
// shipping times or return rules are knowledge questions and must stay with retrieval, so a
// question counts only when it speaks of the visitor's own order or parcel, asks to track
// something, or names an order number.

/** What an order question asks for: one order (by its number) or the recent ones. */
export type OrderQuestion = { orderNumber: string | null };

// Possessive phrases and tracking verbs, in the languages of the fixed replies.
const OWN_ORDER_PATTERNS: readonly RegExp[] = [
  /\b(?:my|our)\s+(?:last\s+|latest\s+|recent\s+)?(?:orders?|package|parcel|delivery|shipment|purchase)\b/i,
  /\bwhere(?:'s|’s|\s+is|\s+are)\s+(?:my|our)\b/i,
  /\b(?:track|tracking)\b/i,
  /\border\s+(?:status|number|no\.?)\b/i,
  /\b(?:ma|mes|notre|nos)\s+commandes?\b|\bmon\s+colis\b|\bo[uù]\s+en\s+est\b|\bsuivi\b/i,
  /\b(?:meine?|unsere?)\s+(?:bestellung(?:en)?|sendung|lieferung|paket)\b|\bsendungsverfolgung\b/i,
  /\b(?:mi|mis|nuestro|nuestros)\s+(?:pedidos?|paquete|env[ií]o)\b|\bseguimiento\b/i,
  /\b(?:meu|meus|minha|minhas)\s+(?:pedidos?|encomendas?|entrega)\b|\brastre(?:io|ar|amento)\b/i,
  /\b(?:il\s+mio|i\s+miei|mio|miei)\s+(?:ordin[ei]|pacco|spedizion[ei])\b|\btracciamento\b/i,
  /\b(?:mijn|onze)\s+(?:bestelling(?:en)?|pakket|levering|zending)\b/i,
];

// "order #1001", "commande n° 1001", "Bestellung: NW-1001": a word for order, a marker, a number.
const ORDER_WORD = '(?:order|commande|bestellung|pedido|encomenda|ordine|bestelling)';
const MARKED_NUMBER = new RegExp(
  String.raw`\b${ORDER_WORD}\s*(?:number|no\.?|n[°º]|nr\.?|#|:)\s*#?\s*([A-Z]{0,6}-?\d{2,12})\b`,
  'i',
);
// "order 1001" or "order NW-1001" without a marker: only numbers that look like order numbers,
// so "can I order 12 bags?" is not read as order 12.
const PLAIN_NUMBER = new RegExp(String.raw`\b${ORDER_WORD}\s+([A-Z]{1,6}-\d{2,12}|\d{4,12})\b`, 'i');
// A bare "#1001" anywhere in the question.
const HASH_NUMBER = /(?:^|\s)#([A-Z]{0,6}-?\d{2,12})\b/i;

/** Reads an order question (and the order number it names, if any); null when it is not one. */
export function readOrderQuestion(question: string): OrderQuestion | null {
  const text = question.slice(0, 2000);
  const numbered = MARKED_NUMBER.exec(text) ?? PLAIN_NUMBER.exec(text) ?? HASH_NUMBER.exec(text);
  const orderNumber = numbered?.[1] ?? null;
  if (orderNumber !== null) return { orderNumber };
  return OWN_ORDER_PATTERNS.some((pattern) => pattern.test(text)) ? { orderNumber: null } : null;
}
