import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { couponSummary as format } from './coupon-summary.js';

// Intl puts no-break spaces (U+00A0, U+202F) between number and sign in some languages.
const couponSummary = (...args: Parameters<typeof format>) => format(...args).replace(/[\u00a0\u202f]/g, ' ');

describe('couponSummary', () => {
  it('spells out a percentage and a free-shipping amount in the shop currency', () => {
    assert.equal(couponSummary({ label: 'Welcome offer', discount: '10%' }, 'en', 'EUR'), '10% off');
    assert.equal(
      couponSummary({ label: 'Free shipping on any order', discount: '4.90' }, 'en', 'EUR'),
      'Free shipping, saves €4.90',
    );
    assert.equal(couponSummary({ label: 'Spring sale', discount: '5' }, 'en', 'USD'), '$5.00 off');
  });

  it('formats for the visitor language, base language when the region is unknown', () => {
    assert.equal(couponSummary({ label: 'Willkommen', discount: '10 %' }, 'de', 'EUR'), '10 % Rabatt');
    assert.equal(
      couponSummary({ label: 'Livraison offerte', discount: '4,90' }, 'fr-ca', 'EUR'),
      'Livraison gratuite, économisez 4,90 €',
    );
    // A language the service has no words for gets English words, local number format.
    assert.equal(couponSummary({ label: 'x', discount: '15%' }, 'sv', 'SEK'), '15 % off');
  });

  it('says nothing for a discount that is not a number, or out of range', () => {
    for (const discount of ['', 'half price', '0%', '150%', '-5', '1e9', '10%%', '<b>5</b>']) {
      assert.equal(couponSummary({ label: 'x', discount }, 'en', 'EUR'), '', discount);
    }
  });

  it('falls back to a plain amount without a (valid) currency', () => {
    assert.equal(
      couponSummary({ label: 'Free delivery', discount: '4.90' }, 'en', null),
      'Free shipping, saves 4.90',
    );
    assert.equal(couponSummary({ label: 'x', discount: '3' }, 'en', 'NOT-A-CODE'), '3.00 off');
  });
});
