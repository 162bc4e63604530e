import type { ProductCard } from '../answer-context.js';
import type { ComposerPhrases } from './phrases.js';

/** Lines of a synced product's text that its card states better (price, stock, SKU, categories). */
export const CARD_LINE = /^(?:price|stock|sku|categories)\s*:/i;

/** Site text placed into markdown: characters that would change the rendering are dropped. */
function plain(text: string): string {
  return text
    .replace(/[*_`[\]()<>#\\|\n\r]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 160);
}

/** A price with its currency (`14.90 EUR`). */
function money(amount: string, currency: string | null): string {
  return plain(currency ? `${amount} ${currency.toUpperCase()}` : amount);
}

/** A URL as a markdown link target: the characters that would end the target are escaped. */
function linkTarget(url: string): string {
  return url.replace(
    /[()\s<>]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

/**
 * One line stating a synced product's stored fields, cited:
 * `Kenya Nyeri 250 g: 14.90 EUR, in stock. [View the product](https://…) [3]`. A sale shows
 * the regular price beside it; a product without a price says only whether it is in stock.
 */
export function productFactLine(product: ProductCard, id: number, words: ComposerPhrases): string {
  const facts: string[] = [];
  if (product.price) {
    const onSale =
      product.on_sale && product.regular_price && product.regular_price !== product.price
        ? ` (${words.regularPrice(money(product.regular_price, product.currency))})`
        : '';
    facts.push(`${money(product.price, product.currency)}${onSale}`);
  }
  facts.push(product.in_stock ? words.inStock : words.outOfStock);
  const link =
    product.url && /^https?:\/\//i.test(product.url)
      ? ` [${words.viewProduct}](${linkTarget(product.url)})`
      : '';
  return `${plain(product.name)}: ${facts.join(', ')}.${link} [${id}]`;
}

/**
 * A synced product's stored fields as one line of the model's source text (the chunk may be
 * one that holds neither price nor stock): `Product: … | Price: 14.90 EUR | Stock: in stock | URL: …`.
 */
export function productContextLine(product: ProductCard): string {
  const parts = [`Product: ${plain(product.name)}`];
  if (product.price) {
    const sale =
      product.on_sale && product.regular_price && product.regular_price !== product.price
        ? ` (on sale; regular price ${money(product.regular_price, product.currency)})`
        : '';
    parts.push(`Price: ${money(product.price, product.currency)}${sale}`);
  }
  parts.push(`Stock: ${product.in_stock ? 'in stock' : 'out of stock'}`);
  if (product.url) parts.push(`URL: ${product.url.replace(/[\s<>"|]+/g, '')}`);
  return parts.join(' | ');
}
