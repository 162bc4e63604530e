import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { READABILITY_MAX_HTML_CHARS, readHtmlPage, robotsHeaderDirectives } from './read-html-page.js';

const ARTICLE_PARAGRAPHS = [
  'Our returns policy gives every customer thirty days to send back any unused item in its original packaging, with the receipt or the order number.',
  'Refunds are paid to the original payment method within five working days of the parcel reaching our warehouse in Leeds; we email you when it is done.',
  'Items bought in a sale can be exchanged for another size or colour, but not refunded, unless they arrive damaged or faulty, which we always make right.',
];

/** A shop page as sites really are: head tags, a cookie banner, nav, the article, an aside, a footer. */
function shopPage(options: { head?: string; body?: string; article?: string[] } = {}): string {
  const paragraphs = (options.article ?? ARTICLE_PARAGRAPHS).map((text) => `<p>${text}</p>`).join('\n');
  return `<!DOCTYPE html>
<html lang="en-GB">
<head>
  <meta charset="utf-8">
  <title>Returns and refunds | Demo Shop</title>
  <link rel="stylesheet" href="/style.css">
  <script>window.dataLayer = []; function trackingPixelCode() {}</script>
  <style>.cookie-banner { position: fixed; }</style>
  ${options.head ?? ''}
</head>
<body>
  <div class="cookie-banner" role="dialog" aria-label="Cookies">We use cookies to improve your experience. <button>Accept all cookies</button></div>
  <header class="site-header"><a href="/" class="logo">Demo Shop</a>
    <nav class="main-menu"><ul>
      <li><a href="/shop">Shop everything</a></li>
      <li><a href="/help/delivery#times">Delivery information</a></li>
      <li><a href="https://twitter.example/demoshop">Follow us</a></li>
      <li><a href="/login" rel="nofollow">Sign in</a></li>
    </ul></nav>
  </header>
  <main>
    <article>
      <h1>Returns and refunds</h1>
      ${paragraphs}
      <p>See also <a href="faq?utm_source=newsletter&amp;topic=returns">the FAQ</a> and <a href="mailto:help@shop.example">email us</a>.</p>
    </article>
    <aside class="related">Related products you might like: the Forever Mug</aside>
  </main>
  ${options.body ?? ''}
  <footer><p>Copyright 2026 Demo Shop Ltd. Registered in England.</p><a href="/privacy">Privacy</a></footer>
  <script>console.log("analytics bootstrap");</script>
</body>
</html>`;
}

const URL_ = 'https://shop.example/help/returns';

describe('readHtmlPage', () => {
  test('keeps the article text and drops navigation, scripts, cookie banner and footer', () => {
    const page = readHtmlPage(shopPage(), URL_);
    for (const paragraph of ARTICLE_PARAGRAPHS) assert.ok(page.text.includes(paragraph), page.text);
    for (const furniture of [
      'Shop everything',
      'Delivery information',
      'trackingPixelCode',
      'analytics bootstrap',
      'Accept all cookies',
      'Copyright 2026',
      'position: fixed',
    ]) {
      assert.ok(!page.text.includes(furniture), `${furniture} leaked into: ${page.text}`);
    }
    assert.equal(page.title, 'Returns and refunds | Demo Shop');
    assert.equal(page.lang, 'en-GB');
    assert.equal(page.noindex, false);
    assert.equal(page.nofollow, false);
  });

  test('a page too short for Readability falls back to the body without its furniture', () => {
    const page = readHtmlPage(shopPage({ article: ['Opening hours: 9 to 5.'] }), URL_);
    assert.ok(page.text.includes('Opening hours: 9 to 5.'), page.text);
    assert.ok(page.text.includes('Returns and refunds'));
    for (const furniture of [
      'Shop everything',
      'analytics bootstrap',
      'Accept all cookies',
      'Copyright 2026',
      'Forever Mug',
    ]) {
      assert.ok(!page.text.includes(furniture), `${furniture} leaked into: ${page.text}`);
    }
  });

  test('HTML over the Readability cap uses the fallback and still finds the text', () => {
    const filler = `<div hidden>${'x'.repeat(READABILITY_MAX_HTML_CHARS)}</div>`;
    const page = readHtmlPage(shopPage({ body: filler }), URL_);
    assert.ok(page.text.includes(ARTICLE_PARAGRAPHS[0] ?? ''));
    assert.ok(!page.text.includes('Shop everything'));
    assert.ok(!page.text.includes('xxxxxxxx'));
  });

  test('links are absolute, fragment-free, tracking-free, http(s) only and skip rel=nofollow', () => {
    const page = readHtmlPage(shopPage(), URL_);
    assert.deepEqual(page.links, [
      'https://shop.example/',
      'https://shop.example/shop',
      'https://shop.example/help/delivery',
      'https://twitter.example/demoshop',
      'https://shop.example/help/faq?topic=returns',
      'https://shop.example/privacy',
    ]);
  });

  test('links resolve against <base href>', () => {
    const page = readHtmlPage(shopPage({ head: '<base href="https://shop.example/docs/v2/">' }), URL_);
    assert.ok(page.links.includes('https://shop.example/docs/v2/faq?topic=returns'), page.links.join(' '));
    assert.ok(page.links.includes('https://shop.example/shop'));
  });

  test('canonical: same-origin kept in normal form, another origin ignored, absent is null', () => {
    const same = readHtmlPage(
      shopPage({ head: '<link rel="canonical" href="/help/returns?utm_medium=x#top">' }),
      URL_,
    );
    assert.equal(same.canonicalUrl, 'https://shop.example/help/returns');
    const other = readHtmlPage(
      shopPage({ head: '<link rel="canonical" href="https://mirror.example/returns">' }),
      URL_,
    );
    assert.equal(other.canonicalUrl, null);
    const otherScheme = readHtmlPage(
      shopPage({ head: '<link rel="canonical" href="http://shop.example/x">' }),
      URL_,
    );
    assert.equal(otherScheme.canonicalUrl, null);
    assert.equal(readHtmlPage(shopPage(), URL_).canonicalUrl, null);
  });

  test('meta robots noindex, nofollow and none, for robots or the crawler token', () => {
    const noindex = readHtmlPage(shopPage({ head: '<meta name="robots" content="noindex, follow">' }), URL_);
    assert.deepEqual([noindex.noindex, noindex.nofollow], [true, false]);
    const none = readHtmlPage(shopPage({ head: '<meta name="ROBOTS" content="NONE">' }), URL_);
    assert.deepEqual([none.noindex, none.nofollow], [true, true]);
    const ours = readHtmlPage(
      shopPage({ head: '<meta name="chatagentservicebot" content="nofollow">' }),
      URL_,
    );
    assert.deepEqual([ours.noindex, ours.nofollow], [false, true]);
    const theirs = readHtmlPage(
      shopPage({ head: '<meta name="googlebot" content="noindex,nofollow">' }),
      URL_,
    );
    assert.deepEqual([theirs.noindex, theirs.nofollow], [false, false]);
  });

  test('title falls back to the first h1; a fragment without <html> still parses', () => {
    const page = readHtmlPage(
      '<h1>Size guide</h1><p>Measure your chest.</p><a href="/sizes">All sizes</a>',
      URL_,
    );
    assert.equal(page.title, 'Size guide');
    assert.ok(page.text.includes('Measure your chest.'));
    assert.deepEqual(page.links, ['https://shop.example/sizes']);
    assert.equal(page.lang, null);
  });
});

describe('robotsHeaderDirectives', () => {
  test('unscoped directives apply; another crawler scope does not; ours does', () => {
    assert.deepEqual([...robotsHeaderDirectives('noindex, nofollow')], ['noindex', 'nofollow']);
    assert.deepEqual([...robotsHeaderDirectives('googlebot: noindex')], []);
    assert.deepEqual([...robotsHeaderDirectives('ChatAgentServiceBot: noindex')], ['noindex']);
    assert.deepEqual([...robotsHeaderDirectives('max-snippet: 20, noindex')], ['max-snippet: 20', 'noindex']);
  });
});
