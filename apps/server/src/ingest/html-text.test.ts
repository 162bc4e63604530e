import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { htmlToText } from './html-text.js';

describe('htmlToText', () => {
  test('empty or blank HTML gives the empty string', () => {
    assert.equal(htmlToText(''), '');
    assert.equal(htmlToText('   \n\t '), '');
    assert.equal(htmlToText('<p></p><div> </div>'), '');
  });

  test('plain text passes through', () => {
    assert.equal(htmlToText('Just words.'), 'Just words.');
  });

  test('scripts, styles, navigation and images are dropped', () => {
    const text = htmlToText(
      '<nav><a href="/">Home</a> <a href="/shop">Shop menu</a></nav>' +
        '<script>window.track("visit")</script>' +
        '<style>.price { color: red }</style>' +
        '<p>We ship <img src="https://cdn.example.com/van.jpg" alt="Delivery van"> every day.</p>' +
        '<figure><img src="/truck.png" alt="Truck"><figcaption>Our fleet.</figcaption></figure>',
    );
    assert.equal(text, 'We ship every day.\n\nOur fleet.');
    for (const dropped of [
      'Home',
      'Shop menu',
      'track',
      'visit',
      'color',
      'van.jpg',
      'Delivery van',
      'Truck',
    ]) {
      assert.ok(!text.includes(dropped), `${dropped} is dropped`);
    }
  });

  test('headings keep their case and become their own paragraphs', () => {
    const text = htmlToText(
      '<h1>Shipping Times</h1><p>We ship fast.</p><h3>Small print</h3><p>Terms apply.</p>',
    );
    assert.equal(text, 'Shipping Times\n\nWe ship fast.\n\nSmall print\n\nTerms apply.');
    for (const level of [1, 2, 3, 4, 5, 6]) {
      assert.equal(htmlToText(`<h${level}>Mixed Case Heading</h${level}>`), 'Mixed Case Heading');
    }
  });

  test('links keep their text but not their target', () => {
    const text = htmlToText('<p>See <a href="https://example.com/help?x=1">our help pages</a> for more.</p>');
    assert.equal(text, 'See our help pages for more.');
    assert.ok(!text.includes('example.com'));
    assert.ok(!text.includes('['));
  });

  test('tables stay readable: one line per row, cells in order', () => {
    const text = htmlToText(
      '<table><thead><tr><th>Size</th><th>Price</th></tr></thead>' +
        '<tbody><tr><td>Small</td><td>€5.00</td></tr><tr><td>Large</td><td>€9.50</td></tr></tbody></table>',
    );
    const lines = text.split('\n');
    assert.equal(lines.length, 3);
    assert.match(lines[0] ?? '', /^size\s+price$/i);
    assert.match(lines[1] ?? '', /^Small\s+€5\.00$/);
    assert.match(lines[2] ?? '', /^Large\s+€9\.50$/);
  });

  test('entities are decoded', () => {
    const text = htmlToText(
      '<p>Fish &amp; chips &lt;3 &euro;5 &quot;fresh&quot; &#39;daily&#39; caf&eacute; a&nbsp;b &#x263A;</p>',
    );
    assert.match(text, /^Fish & chips <3 €5 "fresh" 'daily' café a\sb ☺$/);
  });

  test('paragraphs are separated by one blank line, never more', () => {
    const text = htmlToText('<p>One</p>\n\n\n<p>Two</p><br><br><br><br><div>Three</div>');
    assert.equal(text, 'One\n\nTwo\n\nThree');
    assert.ok(!/\n{3,}/.test(htmlToText('<p>a</p><br><br><br><br><br><br><p>b</p>')));
  });

  test('long lines are not wrapped and inline markup is flattened', () => {
    const long = 'word '.repeat(60).trim();
    assert.equal(htmlToText(`<p>${long}</p>`), long);
    assert.equal(htmlToText('<p>We <strong>really</strong> <em>do</em> ship.</p>'), 'We really do ship.');
  });

  test('lists keep one item per line', () => {
    const lines = htmlToText('<p>Materials:</p><ul><li>Cotton</li><li>Wool</li></ul>').split('\n');
    assert.deepEqual(
      lines.map((line) => line.trim()),
      ['Materials:', '', '* Cotton', '* Wool'],
    );
  });

  test('the compiled converter gives the same answer on repeated calls', () => {
    const html = '<h2>Returns</h2><p>Within <a href="/r">30 days</a>.</p><script>x()</script>';
    const first = htmlToText(html);
    assert.equal(first, 'Returns\n\nWithin 30 days.');
    for (let i = 0; i < 5; i += 1) assert.equal(htmlToText(html), first);
  });
});
