/// <reference types="node" />
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHTML } from 'linkedom';
import { renderMarkdown, safeUrl } from './markdown.js';
import type { TCitation } from './types.js';

const { document } = parseHTML('<!doctype html><html><body></body></html>');

/** Renders into a fresh <div> and returns it (for querying and serialising). */
function render(text: string, citations: TCitation[] = []) {
  const host = document.createElement('div');
  host.appendChild(renderMarkdown(document, text, { citations }));
  return host;
}

describe('renderMarkdown: hostile input', () => {
  it('renders raw HTML as literal text, never as elements', () => {
    const host = render('<img src=x onerror=alert(1)> and <script>alert(2)</script>');
    assert.equal(host.querySelectorAll('img, script').length, 0);
    assert.equal(host.textContent, '<img src=x onerror=alert(1)> and <script>alert(2)</script>');
    assert.ok(host.innerHTML.includes('&lt;img'));
  });

  it('renders a markdown image as its alt text, with no <img>', () => {
    const host = render('look ![x](https://evil.example/x.png) here');
    assert.equal(host.querySelectorAll('img').length, 0);
    assert.equal(host.textContent, 'look x here');
    assert.ok(!host.innerHTML.includes('evil.example'));
  });

  it('drops javascript:, data: and vbscript: links to plain text', () => {
    for (const href of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' javascript:alert(1)',
      'data:text/html,x',
      'vbscript:x',
    ]) {
      const host = render(`[click](${href})`);
      assert.equal(host.querySelectorAll('a').length, 0, href);
      assert.ok(host.textContent?.includes('click'), href);
      assert.ok(!host.innerHTML.includes('href'), href);
    }
  });

  it('renders the label alone when the link is refused', () => {
    assert.equal(render('[click](javascript:alert(1))').textContent, 'click');
  });

  it('drops relative links (they would resolve against the host page)', () => {
    const host = render('[home](/admin)');
    assert.equal(host.querySelectorAll('a').length, 0);
  });

  it('keeps attribute-breaking characters inside the text and href', () => {
    const host = render('[x"><b>](https://a.example/"onmouseover="x)');
    assert.equal(host.querySelectorAll('b').length, 0);
    const a = host.querySelector('a');
    assert.ok(a);
    assert.equal(a.getAttributeNames().sort().join(','), 'href,rel,target');
  });
});

describe('renderMarkdown: links', () => {
  it('renders an https link with target and rel', () => {
    const a = render('[ok](https://a.example)').querySelector('a');
    assert.ok(a);
    assert.equal(a.getAttribute('href'), 'https://a.example/');
    assert.equal(a.getAttribute('target'), '_blank');
    assert.equal(a.getAttribute('rel'), 'noopener noreferrer nofollow');
    assert.equal(a.textContent, 'ok');
  });

  it('allows mailto and tel links', () => {
    const host = render('[mail](mailto:help@shop.example) or [call](tel:+4912345)');
    const hrefs = [...host.querySelectorAll('a')].map((a) => a.getAttribute('href'));
    assert.deepEqual(hrefs, ['mailto:help@shop.example', 'tel:+4912345']);
  });

  it('autolinks bare http(s) URLs without trailing punctuation', () => {
    const host = render('See https://shop.example/faq. Or http://a.example/x?y=1, thanks');
    const links = [...host.querySelectorAll('a')];
    assert.deepEqual(
      links.map((a) => a.getAttribute('href')),
      ['https://shop.example/faq', 'http://a.example/x?y=1'],
    );
    assert.equal(links[0]?.getAttribute('rel'), 'noopener noreferrer nofollow');
    assert.equal(host.textContent, 'See https://shop.example/faq. Or http://a.example/x?y=1, thanks');
  });

  it('safeUrl accepts only absolute URLs with an allowed scheme', () => {
    assert.equal(safeUrl('https://a.example/p'), 'https://a.example/p');
    assert.equal(safeUrl('ftp://a.example'), null);
    assert.equal(safeUrl('//a.example'), null);
    assert.equal(safeUrl('mailto:a@b.example', ['http:', 'https:']), null);
  });
});

describe('renderMarkdown: citations', () => {
  const citations: TCitation[] = [
    { id: 1, url: 'https://shop.example/returns', title: 'Returns' },
    { id: 2, url: null, title: 'Uploaded handbook' },
    { id: 3, url: 'javascript:alert(1)', title: 'Bad' },
  ];

  it('renders [N] as a marker button naming its source; unknown numbers stay text', () => {
    const host = render('Returns take 30 days [1]. See the handbook [2] and [3]; [9] is unknown.', citations);
    assert.equal(host.querySelectorAll('a').length, 0, 'the links live in the source list, not in the text');
    const cited = [...host.querySelectorAll('[data-testid="citation"]')];
    assert.deepEqual(
      cited.map((el) => [el.tagName, el.textContent, el.getAttribute('title'), el.getAttribute('data-n')]),
      [
        ['BUTTON', '[1]', 'Returns', '1'],
        ['BUTTON', '[2]', 'Uploaded handbook', '2'],
        ['BUTTON', '[3]', 'Bad', '3'],
      ],
    );
    assert.ok(host.textContent?.includes('handbook [2] and [3]; [9]'));
  });
});

describe('renderMarkdown: structure', () => {
  it('renders paragraphs, line breaks, bold, italic and code', () => {
    const host = render('**Bold** and *it* and _also_ and `x<y`\nnext line\n\nsecond para');
    const ps = host.querySelectorAll('p');
    assert.equal(ps.length, 2);
    assert.equal(host.querySelector('strong')?.textContent, 'Bold');
    assert.deepEqual(
      [...host.querySelectorAll('em')].map((e) => e.textContent),
      ['it', 'also'],
    );
    assert.equal(host.querySelector('code')?.textContent, 'x<y');
    assert.equal(ps[0]?.querySelectorAll('br').length, 1);
  });

  it('leaves snake_case and lone asterisks alone', () => {
    const host = render('use my_var_name and 2 * 3 * 4');
    assert.equal(host.querySelectorAll('em').length, 0);
    assert.equal(host.textContent, 'use my_var_name and 2 * 3 * 4');
  });

  it('renders bullet and numbered lists', () => {
    const host = render('Steps:\n1. first\n2. **second**\n\n- a\n- b [ok](https://a.example)');
    assert.equal(host.querySelectorAll('ol > li').length, 2);
    assert.equal(host.querySelectorAll('ul > li').length, 2);
    assert.equal(host.querySelector('ol strong')?.textContent, 'second');
    assert.equal(host.querySelectorAll('ul a').length, 1);
  });

  it('renders fenced code blocks verbatim', () => {
    const host = render('Try:\n```js\nconst a = "<b>" ** 2;\n[x](javascript:1)\n```\ndone');
    const pre = host.querySelector('pre code');
    assert.equal(pre?.textContent, 'const a = "<b>" ** 2;\n[x](javascript:1)');
    assert.equal(host.querySelectorAll('pre a, pre strong, b').length, 0);
  });

  it('renders headings as bold paragraphs', () => {
    const host = render('## Shipping\nWe ship daily.');
    assert.equal(host.querySelector('p > strong')?.textContent, 'Shipping');
  });
});
