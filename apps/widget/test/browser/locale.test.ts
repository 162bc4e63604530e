import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { withPage } from './support/browser.js';
import { useHarness } from './support/harness.js';
import { type EmbedOptions, embedPage, type HostSite } from './support/host.js';
import { hostAgent, type Service } from './support/service.js';
import { byTestId, loadWidget, uiStrings, widgetRoot } from './support/widget.js';

// UI language resolution in a real browser: data-locale, then <html lang>, then the agent's
// default when the page declares none, then the browser's languages, then English. Regional
// tags fall back to the base language unless a regional file ships (pt-BR does).

type Case = {
  name: string;
  page: Pick<EmbedOptions, 'dataLocale' | 'lang'>;
  agentLanguage?: string;
  browserLocale?: string;
  /** The locale file whose strings must show. */
  expect: string;
  dir: 'ltr' | 'rtl';
};

const CASES: Case[] = [
  { name: 'data-locale="de" gives German', page: { dataLocale: 'de' }, expect: 'de', dir: 'ltr' },
  { name: '<html lang="fr"> gives French', page: { lang: 'fr' }, expect: 'fr', dir: 'ltr' },
  {
    name: 'data-locale wins over <html lang>',
    page: { dataLocale: 'de', lang: 'fr' },
    expect: 'de',
    dir: 'ltr',
  },
  {
    name: 'no page language: the agent default (es) gives Spanish',
    page: {},
    agentLanguage: 'es',
    browserLocale: 'en-US',
    expect: 'es',
    dir: 'ltr',
  },
  {
    name: 'no page language, no agent default: the browser locale it-IT gives Italian',
    page: {},
    browserLocale: 'it-IT',
    expect: 'it',
    dir: 'ltr',
  },
  { name: 'data-locale="en-GB" gives English', page: { dataLocale: 'en-GB' }, expect: 'en', dir: 'ltr' },
  {
    name: 'data-locale="pt-BR" gives the pt-BR strings, not the pt ones',
    page: { dataLocale: 'pt-BR' },
    expect: 'pt-br',
    dir: 'ltr',
  },
  { name: 'data-locale="ar" is right to left', page: { dataLocale: 'ar' }, expect: 'ar', dir: 'rtl' },
  { name: '<html lang="he"> is right to left', page: { lang: 'he' }, expect: 'he', dir: 'rtl' },
];

describe('widget in Chromium: UI language', () => {
  let browser: Browser;
  let service: Service;
  let host: HostSite;

  useHarness((started) => {
    ({ browser, service, host } = started);
  });

  test('the locale files tell pt-BR from pt (the pt-BR case below is meaningful)', () => {
    assert.notEqual(uiStrings('pt-br').placeholder, uiStrings('pt').placeholder);
  });

  CASES.forEach((c, index) => {
    test(c.name, async () => {
      const { agentId } = await hostAgent(
        service,
        host.origin,
        c.agentLanguage ? { language_default: c.agentLanguage } : {},
      );
      const url = host.serve(`/locale-${index}`, {
        html: embedPage({ service: service.base, agentId, ...c.page }),
      });
      const strings = uiStrings(c.expect);
      const english = uiStrings('en');
      await withPage(browser, c.browserLocale ? { locale: c.browserLocale } : {}, async ({ page }) => {
        await loadWidget(page, url);
        const root = widgetRoot(page);
        assert.equal(await root.getAttribute('lang'), c.expect);
        assert.equal(await root.getAttribute('dir'), c.dir);
        assert.equal(await byTestId(page, 'close').getAttribute('aria-label'), strings.close);
        assert.equal(await byTestId(page, 'input').getAttribute('placeholder'), strings.placeholder);
        if (c.expect !== 'en') {
          assert.notEqual(
            strings.placeholder,
            english.placeholder,
            'the check tells the language from English',
          );
        }
        if (c.dir === 'rtl') {
          const direction = await byTestId(page, 'input').evaluate((el) => getComputedStyle(el).direction);
          assert.equal(direction, 'rtl', 'the layout follows dir');
        }
      });
    });
  });
});
