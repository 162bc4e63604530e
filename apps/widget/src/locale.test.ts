/// <reference types="node" />
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { loadLocale, matchLocale, pageLocale, resolveLocale, setStrings, t } from './locale.js';
import en from './locales/en.json';

const AVAILABLE = ['en', 'de', 'fr', 'pt', 'pt-br', 'ar', 'he', 'nb', 'zh'];

describe('resolveLocale (contract D order)', () => {
  it('takes data-locale first', () => {
    const sources = { dataLocale: 'fr', htmlLang: 'de', agentDefault: 'pt', languages: ['zh'] };
    assert.deepEqual(resolveLocale(sources, AVAILABLE), { tag: 'fr', rtl: false });
  });

  it('then the page <html lang>', () => {
    assert.equal(
      resolveLocale({ htmlLang: 'de-AT', agentDefault: 'fr', languages: ['zh'] }, AVAILABLE).tag,
      'de',
    );
  });

  it("then the agent's default, only when the page declares no language", () => {
    assert.equal(resolveLocale({ htmlLang: '', agentDefault: 'fr', languages: ['de'] }, AVAILABLE).tag, 'fr');
    assert.equal(resolveLocale({ htmlLang: 'de', agentDefault: 'fr', languages: [] }, AVAILABLE).tag, 'de');
  });

  it('then navigator.languages in order, skipping ones without a file', () => {
    assert.equal(resolveLocale({ languages: ['xx-YY', 'de-CH', 'fr'] }, AVAILABLE).tag, 'de');
  });

  it('falls back from a regional tag to its base language', () => {
    assert.equal(resolveLocale({ dataLocale: 'en-GB' }, AVAILABLE).tag, 'en');
    assert.equal(resolveLocale({ dataLocale: 'fr_CA' }, AVAILABLE).tag, 'fr');
  });

  it('keeps a regional tag that has its own file, case-insensitively', () => {
    assert.equal(resolveLocale({ dataLocale: 'pt-BR' }, AVAILABLE).tag, 'pt-br');
    assert.equal(resolveLocale({ dataLocale: 'PT-br' }, AVAILABLE).tag, 'pt-br');
    assert.equal(resolveLocale({ dataLocale: 'pt-PT' }, AVAILABLE).tag, 'pt');
  });

  it('uses English when nothing matches', () => {
    assert.deepEqual(resolveLocale({ dataLocale: 'xx', languages: ['yy-ZZ'] }, AVAILABLE), {
      tag: 'en',
      rtl: false,
    });
    assert.deepEqual(resolveLocale({}, AVAILABLE), { tag: 'en', rtl: false });
  });

  it('flags Arabic and Hebrew as right to left', () => {
    assert.deepEqual(resolveLocale({ dataLocale: 'ar-EG' }, AVAILABLE), { tag: 'ar', rtl: true });
    assert.deepEqual(resolveLocale({ htmlLang: 'he' }, AVAILABLE), { tag: 'he', rtl: true });
    assert.equal(resolveLocale({ htmlLang: 'iw' }, AVAILABLE).tag, 'he');
  });

  it('maps Norwegian to Bokmål', () => {
    assert.equal(matchLocale('no', AVAILABLE), 'nb');
    assert.equal(matchLocale('nb-NO', AVAILABLE), 'nb');
  });

  it('pageLocale is what the page itself declares', () => {
    assert.equal(pageLocale({ dataLocale: ' ', htmlLang: 'de' }), 'de');
    assert.equal(pageLocale({ htmlLang: '' }), null);
  });
});

describe('UI strings', () => {
  it('falls back to English per missing key', async () => {
    setStrings({ send: 'Senden', open: 7 });
    assert.equal(t('send'), 'Senden');
    assert.equal(t('open'), en.open);
    setStrings({});
  });

  it('fetches a locale by its hash from the service, English is built in', async () => {
    const urls: string[] = [];
    const fetcher = async (url: string) => {
      urls.push(url);
      return new Response(JSON.stringify({ send: 'Envoyer' }), {
        headers: { 'content-type': 'application/json' },
      });
    };
    assert.equal(await loadLocale('https://svc.example', 'fr', { fr: 'abcd1234' }, fetcher), true);
    assert.deepEqual(urls, ['https://svc.example/widget/locales/fr.json?v=abcd1234']);
    assert.equal(t('send'), 'Envoyer');
    assert.equal(await loadLocale('https://svc.example', 'en', { fr: 'abcd1234' }, fetcher), true);
    assert.equal(urls.length, 1);
    assert.equal(t('send'), en.send);
  });

  it('keeps English when the fetch fails', async () => {
    const failing = async () => new Response('nope', { status: 404 });
    assert.equal(await loadLocale('https://svc.example', 'de', { de: '12345678' }, failing), false);
    assert.equal(t('send'), en.send);
  });
});

describe('locale files', () => {
  const dir = new URL('./locales/', import.meta.url);
  const files = readdirSync(dir).filter((name) => name.endsWith('.json'));

  it('ship at least 24 locales, including the required ones', () => {
    const tags = files.map((name) => name.slice(0, -5));
    assert.ok(tags.length >= 24, `${tags.length} locales`);
    for (const tag of 'en de fr es it pt pt-br nl sv da nb fi pl cs tr ru uk ja zh ko ar he hi id'.split(
      ' ',
    )) {
      assert.ok(tags.includes(tag), tag);
    }
  });

  it('each translate exactly the English keys, with non-empty text', () => {
    const keys = Object.keys(en).sort();
    for (const name of files) {
      const data: unknown = JSON.parse(readFileSync(new URL(name, dir), 'utf8'));
      assert.ok(data && typeof data === 'object', name);
      assert.deepEqual(Object.keys(data).sort(), keys, name);
      for (const value of Object.values(data)) assert.ok(typeof value === 'string' && value.trim(), name);
    }
  });
});
