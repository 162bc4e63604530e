import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { effectiveScheme, isSafeImageSource, isSafeLink, renderMarkdown } from './render-markdown.js';

/** The tags of `html` with their attributes, parsed the way a browser tokenises a start tag. */
function tags(html: string): Array<{ tag: string; attributes: Array<[string, string]> }> {
  const out: Array<{ tag: string; attributes: Array<[string, string]> }> = [];
  for (const match of html.matchAll(
    /<([a-z][a-z0-9]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/gi,
  )) {
    const attributes: Array<[string, string]> = [];
    for (const attr of (match[2] ?? '').matchAll(
      /\s+([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g,
    )) {
      attributes.push([(attr[1] ?? '').toLowerCase(), attr[2] ?? attr[3] ?? attr[4] ?? '']);
    }
    out.push({ tag: match[0], attributes });
  }
  return out;
}

/** Asserts `html` holds nothing a browser would execute. */
function assertInert(html: string, label: string): void {
  assert.doesNotMatch(html, /<script/i, `${label}: <script in ${html}`);
  assert.doesNotMatch(
    html,
    /<(iframe|svg|object|embed|style|math|form|base|meta|link)\b/i,
    `${label}: ${html}`,
  );
  for (const { tag, attributes } of tags(html)) {
    for (const [name, value] of attributes) {
      assert.doesNotMatch(name, /^on|^style$|^srcdoc$/, `${label}: attribute ${name} in ${tag}`);
      if (['href', 'src', 'action', 'formaction', 'xlink:href', 'srcset'].includes(name)) {
        const scheme = effectiveScheme(value);
        assert.ok(
          scheme === null || ['http', 'https', 'mailto'].includes(scheme),
          `${label}: ${name}="${value}" has scheme ${scheme}`,
        );
        assert.doesNotMatch(value, /javascript:|vbscript:|data:|file:/i, `${label}: ${name}="${value}"`);
      }
    }
  }
}

const VECTORS: Array<[string, string]> = [
  ['javascript: link', '[click](javascript:alert(1))'],
  ['upper-case JAVASCRIPT:', '[click](JAVASCRIPT:alert(1))'],
  ['mixed case JaVaScRiPt:', '[click](JaVaScRiPt:alert(1))'],
  ['tab inside the scheme', '[click](java\tscript:alert(1))'],
  ['tab inside the scheme, bracketed', '[click](<java\tscript:alert(1)>)'],
  ['newline inside the scheme, bracketed', '[click](<java\nscript:alert(1)>)'],
  ['decimal entity', '[click](&#106;avascript:alert(1))'],
  ['hex entity and &colon;', '[click](&#x6A;avascript&colon;alert(1))'],
  ['entities without semicolons', '[click](&#106&#97&#118&#97script:alert(1))'],
  ['percent-encoded scheme', '[click](%6Aavascript:alert(1))'],
  ['percent-encoded colon', '[click](javascript%3Aalert(1))'],
  ['leading control character', '[click](\u0001javascript:alert(1))'],
  ['leading spaces, bracketed', '[click](<   javascript:alert(1)>)'],
  ['zero-width space in the scheme', '[click](java\u200bscript:alert(1))'],
  ['data:text/html link', '[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)'],
  ['data: image', '![pic](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)'],
  ['javascript: image', '![pic](javascript:alert(1))'],
  ['relative image (not http)', '![pic](/local.png)'],
  ['vbscript: link', '[click](vbscript:msgbox(1))'],
  ['file: link', '[click](file:///etc/passwd)'],
  ['reference-style javascript: link', '[click][x]\n\n[x]: javascript:alert(1)'],
  ['raw <script>', '<script>alert(1)</script>'],
  ['raw <script> block', '<script>\nalert(1)\n</script>\n\ntext'],
  ['<img onerror>', '<img src=x onerror=alert(1)>'],
  ['<iframe>', '<iframe src="javascript:alert(1)"></iframe>'],
  ['<svg onload>', '<svg onload=alert(1)>'],
  ['<a href> raw tag', '<a href="javascript:alert(1)">x</a>'],
  ['autolink <javascript:alert(1)>', '<javascript:alert(1)>'],
  ['autolink <vbscript:...>', '<vbscript:msgbox(1)>'],
  ['autolink <data:...>', '<data:text/html,<script>alert(1)</script>>'],
  ['link title breakout with double quotes', '[x](https://ok.example "a\\" onmouseover=\\"alert(1)")'],
  ['link title breakout with single quotes', "[x](https://ok.example 'a\\' onmouseover=\\'alert(1)')"],
  ['href breakout with a quote in the URL', '[x](https://ok.example/"onmouseover="alert(1))'],
  [
    'image alt and title breakout',
    '![a" onerror="alert(1)](https://ok.example/i.png "t\\" onerror=\\"alert(1)")',
  ],
  ['code fence info breakout', '```js" onclick="alert(1)\ncode\n```'],
  ['html comment and CDATA', '<!-- x --><![CDATA[<script>alert(1)</script>]]>'],
];

/** Raw HTML edge cases: [label, markdown, the exact HTML expected]. */
const RAW_HTML: Array<[string, string, string]> = [
  ['<script> block', '<script>alert(1)</script>', ''],
  ['upper-case <SCRIPT>', '<SCRIPT>alert(1)</SCRIPT>\n\nafter', '<p>after</p>\n'],
  ['mixed-case inline <ScRiPt>', 'x <ScRiPt>alert(1)</sCrIpT> y', '<p>x  y</p>\n'],
  ['unclosed <script> block', '<script>alert(1)\n\nmore alert(2)', ''],
  ['unclosed inline <script>', 'p <script>alert(1) *x* end', '<p>p </p>\n'],
  ['<style> block', '<style>body{display:none}</style>\n\nok', '<p>ok</p>\n'],
  ['<img onerror>', '<img src=x onerror=alert(1)>', ''],
  [
    'inline <img> with attributes across lines',
    'para <img\nsrc=x\nonerror=alert(1)> end',
    '<p>para  end</p>\n',
  ],
  ['<iframe> with fallback', '<iframe src="javascript:alert(1)">fallback</iframe>', ''],
  ['<svg onload>', '<svg onload=alert(1)>', ''],
  ['<svg> with attributes across lines', 'a <svg\n  onload="alert(1)"\n  width=1> b', '<p>a  b</p>\n'],
  ['<a href=javascript:>', '<a href="javascript:alert(1)">link text</a>', '<p>link text</p>\n'],
  ['nested tags', '<div><b>nested <i>deep <u>er</u></i></b></div>', '<p>nested deep er</p>\n'],
  ['nested script in a div block', '<div>\nHi <script>alert(1)</script> there\n</div>', '<p>Hi  there</p>\n'],
  ['script split by a blank line in a div', '<div>\n<script>\nalert(1)\n\n</script>\n</div>', ''],
  ['a quoted > inside an attribute', '<div title="a>b" onclick=\'alert(1)\'>t</div>', '<p>t</p>\n'],
  ['an unclosed quote hides the rest of the block', '<div title="x>alert(1)</div>\n\nnext', '<p>next</p>\n'],
  ['HTML comment', 'a <!-- <script>alert(1)</script> --> b', '<p>a  b</p>\n'],
  ['<!--> (an empty comment)', '<!-->visible', '<p>visible</p>\n'],
  ['<!---> inline', 'a <!---> b', '<p>a  b</p>\n'],
  ['comment block', '<!--\n<img src=x onerror=alert(1)>\n-->', ''],
  ['CDATA', '<![CDATA[<script>alert(1)</script>]]>', ''],
  ['processing instruction', '<?xml-stylesheet href="javascript:alert(1)"?>', ''],
  ['declaration', '<!DOCTYPE html>', ''],
  ['a tag reassembled inline', '<<b>script>alert(1)<</b>/script>', ''],
  ['a paragraph of tags only', '<span>\n</span> <b></b>', ''],
  ['a tag reassembled in a block', '<div><<b>script>alert(1)<</b>/script></div>', ''],
  ['escaped tags inside a block', '<div>&lt;script&gt;alert(1)&lt;/script&gt;</div>', ''],
  ['<textarea> content', '<textarea><script>alert(1)</script></textarea>ok', '<p>ok</p>\n'],
];

describe('renderMarkdown: hostile input', () => {
  for (const [label, markdown] of VECTORS) {
    test(`neutralises ${label}`, () => {
      assertInert(renderMarkdown(markdown), label);
    });
  }

  test('there are at least 14 vectors', () => {
    assert.ok(VECTORS.length >= 14);
  });

  test('raw HTML tags are stripped: harmless text stays, a script or style body goes', () => {
    assert.equal(renderMarkdown('<b>x</b>'), '<p>x</p>\n');
    assert.equal(renderMarkdown('a <span class="k">b</span> c'), '<p>a b c</p>\n');
    assert.equal(renderMarkdown('<script>alert(1)</script>'), '');
    assert.equal(renderMarkdown('x <style>p{color:red}</style> y'), '<p>x  y</p>\n');
    assert.equal(renderMarkdown('<div>\nHello <b>there</b>\n</div>'), '<p>Hello there</p>\n');
  });

  for (const [label, markdown, expected] of RAW_HTML) {
    test(`strips raw HTML: ${label}`, () => {
      const html = renderMarkdown(markdown);
      assertInert(html, label);
      assert.doesNotMatch(html, /&lt;|&gt;/, `${label}: no tag shown as escaped text in ${html}`);
      assert.doesNotMatch(html, /alert|onerror|onload|javascript/i, `${label}: ${html}`);
      assert.equal(html, expected, label);
    });
  }

  test('code spans and blocks that contain a tag still show it as code text', () => {
    assert.equal(
      renderMarkdown('Use `<script>alert(1)</script>` here.'),
      '<p>Use <code>&lt;script&gt;alert(1)&lt;/script&gt;</code> here.</p>\n',
    );
    assert.equal(
      renderMarkdown('```html\n<script>alert(1)</script>\n```'),
      '<pre><code class="language-html">&lt;script&gt;alert(1)&lt;/script&gt;\n</code></pre>\n',
    );
    assert.equal(
      renderMarkdown('    <iframe src=x></iframe>'),
      '<pre><code>&lt;iframe src=x&gt;&lt;/iframe&gt;\n</code></pre>\n',
    );
  });

  test('a refused link is not a link; a refused image leaves only its alt text', () => {
    assert.doesNotMatch(renderMarkdown('[click](javascript:alert(1))'), /<a\s/);
    assert.doesNotMatch(renderMarkdown('![pic](data:image/png;base64,AAAA)'), /<img/);
    assert.equal(renderMarkdown('![just alt](/local.png)'), '<p>just alt</p>\n');
  });

  test('the tag parser of these tests does see an injected handler', () => {
    assert.throws(() => assertInert('<a href="https://x" onmouseover="alert(1)">x</a>', 'self-check'));
    assert.throws(() => assertInert('<a href="JaVa&#115;cript:alert(1)">x</a>', 'self-check'));
  });

  test('quote breakouts stay inside the escaped attribute', () => {
    const html = renderMarkdown('[x](https://ok.example "a\\" onmouseover=\\"alert(1)")');
    assert.match(html, /title="a&quot; onmouseover=&quot;alert\(1\)"/);
  });
});

describe('link and image policy', () => {
  test('links: http(s), mailto, relative and fragments pass; other schemes in any spelling fail', () => {
    for (const ok of [
      'https://a.example/x',
      'http://a.example',
      'mailto:a@b.example',
      '/docs',
      'docs/a:b',
      '#top',
      '?q=a:b',
      '//cdn.example/x',
    ]) {
      assert.equal(isSafeLink(ok), true, ok);
    }
    for (const bad of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'java\tscript:alert(1)',
      'java\nscript:alert(1)',
      '\u0000javascript:alert(1)',
      '&#106;avascript:alert(1)',
      '&#x6a;&#x61;vascript:alert(1)',
      'javascript&colon;alert(1)',
      '%6a%61vascript:alert(1)',
      '%256aavascript:alert(1)',
      'vbscript:msgbox(1)',
      'VBScript:msgbox(1)',
      'data:text/html,<script>alert(1)</script>',
      'DATA:image/png;base64,AAAA',
      'file:///etc/passwd',
      ':nothing',
    ]) {
      assert.equal(isSafeLink(bad), false, JSON.stringify(bad));
    }
  });

  test('images: only absolute http(s) sources', () => {
    assert.equal(isSafeImageSource('https://a.example/i.png'), true);
    assert.equal(isSafeImageSource('http://a.example/i.png'), true);
    for (const bad of [
      '/i.png',
      'i.png',
      'data:image/png;base64,AAAA',
      'javascript:alert(1)',
      'file:///i.png',
    ]) {
      assert.equal(isSafeImageSource(bad), false, bad);
    }
  });
});

describe('renderMarkdown: ordinary markdown is intact', () => {
  test('headings, emphasis, lists and paragraphs', () => {
    const html = renderMarkdown(
      '# Title\n\n## Sub\n\nSome **bold** and *italic* and `code`.\n\n- one\n- two\n\n1. first\n2. second\n',
    );
    assert.match(html, /<h1>Title<\/h1>/);
    assert.match(html, /<h2>Sub<\/h2>/);
    assert.match(html, /<strong>bold<\/strong>/);
    assert.match(html, /<em>italic<\/em>/);
    assert.match(html, /<code>code<\/code>/);
    assert.match(html, /<ul>\n<li>one<\/li>\n<li>two<\/li>\n<\/ul>/);
    assert.match(html, /<ol>\n<li>first<\/li>\n<li>second<\/li>\n<\/ol>/);
  });

  test('fenced code blocks keep their text, escaped', () => {
    const html = renderMarkdown('```js\nif (a < b && c) {}\n```\n');
    assert.equal(html, '<pre><code class="language-js">if (a &lt; b &amp;&amp; c) {}\n</code></pre>\n');
  });

  test('http(s) links, mailto and relative links render with rel=nofollow noopener noreferrer', () => {
    const html = renderMarkdown(
      '[site](https://example.com/a?b=1) [mail](mailto:help@example.com) [rel](/kb/x) [frag](#s)',
    );
    assert.match(
      html,
      /<a href="https:\/\/example\.com\/a\?b=1" rel="nofollow noopener noreferrer">site<\/a>/,
    );
    assert.match(html, /<a href="mailto:help@example\.com" rel="nofollow noopener noreferrer">mail<\/a>/);
    assert.match(html, /<a href="\/kb\/x" rel="nofollow noopener noreferrer">rel<\/a>/);
    assert.match(html, /<a href="#s" rel="nofollow noopener noreferrer">frag<\/a>/);
  });

  test('bare URLs are linkified', () => {
    assert.match(
      renderMarkdown('see https://example.com/docs'),
      /<a href="https:\/\/example\.com\/docs" rel="nofollow noopener noreferrer">https:\/\/example\.com\/docs<\/a>/,
    );
  });

  test('http images render', () => {
    assert.match(
      renderMarkdown('![logo](https://example.com/logo.png)'),
      /<img src="https:\/\/example\.com\/logo\.png" alt="logo"/,
    );
  });

  test('tables and blockquotes render; typographer is off', () => {
    const html = renderMarkdown('| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted "text" -- here\n');
    assert.match(html, /<table>[\s\S]*<th>a<\/th>[\s\S]*<td>2<\/td>[\s\S]*<\/table>/);
    assert.match(html, /<blockquote>\n<p>quoted &quot;text&quot; -- here<\/p>\n<\/blockquote>/);
  });
});
