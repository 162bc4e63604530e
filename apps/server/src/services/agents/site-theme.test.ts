import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cssColorToHex, themeColorOf } from './site-theme.js';

describe('site theme colour', () => {
  it('reads hex and rgb() colours, refuses anything else', () => {
    assert.equal(cssColorToHex('#5B3A29'), '#5b3a29');
    assert.equal(cssColorToHex(' #abc '), '#aabbcc');
    assert.equal(cssColorToHex('#5b3a29cc'), '#5b3a29', 'alpha dropped');
    assert.equal(cssColorToHex('rgb(91, 58, 41)'), '#5b3a29');
    assert.equal(cssColorToHex('rgba(91 58 41 / 50%)'), '#5b3a29');
    for (const bad of ['brown', 'rgb(300,0,0)', '#12345', 'url(x)', 'expression(alert(1))', '', '#ggg']) {
      assert.equal(cssColorToHex(bad), null, bad);
    }
  });

  it('prefers the colour without a media query, then the light one, and skips unusable ones', async () => {
    const html = `<html><head>
      <meta name="theme-color" media="(prefers-color-scheme: dark)" content="#000000">
      <meta name="theme-color" content="not a colour">
      <meta name="Theme-Color" media="(prefers-color-scheme: light)" content="#5b3a29">
    </head><body></body></html>`;
    assert.equal(await themeColorOf(html), '#5b3a29');
    assert.equal(
      await themeColorOf(
        '<meta name="theme-color" content="#123456"><meta name="theme-color" media="(prefers-color-scheme: light)" content="#654321">',
      ),
      '#123456',
    );
    assert.equal(await themeColorOf('<html><head><title>x</title></head></html>'), null);
  });
});
