import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeLanguageTag, preferredLanguage, resolveLanguage } from './widget-language.js';

describe('widget language', () => {
  test('Accept-Language: highest q wins, ties keep order, q=0 and junk skipped', () => {
    assert.equal(preferredLanguage('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5'), 'fr-ch');
    assert.equal(preferredLanguage('en;q=0.5, de;q=0.9'), 'de');
    assert.equal(preferredLanguage('pt-BR;q=0, es'), 'es');
    assert.equal(preferredLanguage('*, <script>, nl'), 'nl');
    assert.equal(preferredLanguage(''), null);
    assert.equal(preferredLanguage(undefined), null);
  });
  test('order: explicit locale, agent default, Accept-Language, English', () => {
    assert.equal(resolveLanguage('pt_BR', 'de', 'fr'), 'pt-br');
    assert.equal(resolveLanguage(undefined, 'de', 'fr'), 'de');
    assert.equal(resolveLanguage(undefined, null, 'fr-FR,fr;q=0.9'), 'fr-fr');
    assert.equal(resolveLanguage('not a tag!', null, undefined), 'en');
  });
  test('tags are lower-cased and checked', () => {
    assert.equal(normalizeLanguageTag(' EN-gb '), 'en-gb');
    assert.equal(normalizeLanguageTag('e'), null);
    assert.equal(normalizeLanguageTag('en-'), null);
  });
});
