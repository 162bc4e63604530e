import type { TCoupon } from '@service/contract';

// A coupon card says what the code does ("10% off", "Free shipping, saves €4.90"): the site sends
// only a label and a discount (`10%` or a plain amount), so the words come from here, in the
// languages the service knows (fixed-replies.ts), English otherwise.

type Words = { off: (value: string) => string; freeShipping: (saves: string) => string };

const WORDS: Readonly<Record<string, Words>> = {
  en: { off: (v) => `${v} off`, freeShipping: (v) => `Free shipping, saves ${v}` },
  de: { off: (v) => `${v} Rabatt`, freeShipping: (v) => `Kostenloser Versand, spart ${v}` },
  fr: { off: (v) => `${v} de réduction`, freeShipping: (v) => `Livraison gratuite, économisez ${v}` },
  es: { off: (v) => `${v} de descuento`, freeShipping: (v) => `Envío gratis, ahorra ${v}` },
  pt: { off: (v) => `${v} de desconto`, freeShipping: (v) => `Envio grátis, poupa ${v}` },
  it: { off: (v) => `${v} di sconto`, freeShipping: (v) => `Spedizione gratuita, risparmi ${v}` },
  nl: { off: (v) => `${v} korting`, freeShipping: (v) => `Gratis verzending, bespaar ${v}` },
};

/** Words in a coupon's label that say it is about shipping, in the languages above. */
const SHIPPING = /shipping|delivery|versand|lieferung|livraison|env[ií]o|frete|entrega|spedizion|verzend/i;

function formatNumber(value: number, language: string, options: Intl.NumberFormatOptions): string | null {
  try {
    return new Intl.NumberFormat(language, options).format(value);
  } catch {
    return null;
  }
}

/**
 * What the coupon does, in `language`, with amounts in the shop's `currency` (ISO 4217, null
 * when unknown) formatted for that language; '' when the discount is not a number.
 */
export function couponSummary(
  coupon: Pick<TCoupon, 'label' | 'discount'>,
  language: string,
  currency: string | null,
): string {
  const words = WORDS[language] ?? WORDS[language.split('-')[0] ?? ''] ?? (WORDS.en as Words);
  const percent = /^(\d{1,3}(?:[.,]\d{1,2})?)\s*%$/.exec(coupon.discount.trim());
  if (percent?.[1]) {
    const value = Number(percent[1].replace(',', '.'));
    if (!(value > 0 && value <= 100)) return '';
    const text = formatNumber(value / 100, language, { style: 'percent', maximumFractionDigits: 2 });
    return text ? words.off(text) : '';
  }
  const amount = /^(\d{1,9}(?:[.,]\d{1,2})?)$/.exec(coupon.discount.trim());
  if (!amount?.[1]) return '';
  const value = Number(amount[1].replace(',', '.'));
  if (!(value > 0)) return '';
  const money =
    (currency && formatNumber(value, language, { style: 'currency', currency })) ||
    formatNumber(value, language, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  if (!money) return '';
  return SHIPPING.test(coupon.label) ? words.freeShipping(money) : words.off(money);
}
