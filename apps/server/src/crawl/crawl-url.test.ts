import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hasBinaryExtension, normalizeUrl, originOf } from './crawl-url.js';

describe('normalizeUrl', () => {
  test('drops the fragment, the default port and tracking parameters, keeps the rest in order', () => {
    assert.equal(
      normalizeUrl('HTTPS://Shop.Example:443/a/b?z=1&utm_source=x&a=2&fbclid=y#top'),
      'https://shop.example/a/b?z=1&a=2',
    );
    assert.equal(normalizeUrl('http://shop.example:80'), 'http://shop.example/');
    assert.equal(
      normalizeUrl('http://shop.example:8080/x?gclid=1&UTM_Medium=2'),
      'http://shop.example:8080/x',
    );
    assert.equal(
      normalizeUrl('https://shop.example/search?q=a%20b&page=2'),
      'https://shop.example/search?q=a%20b&page=2',
    );
  });

  test('resolves against a base; refuses other schemes, credentials and garbage', () => {
    assert.equal(normalizeUrl('../c?x=1#f', 'https://shop.example/a/b/'), 'https://shop.example/a/c?x=1');
    assert.equal(normalizeUrl('//cdn.example/x', 'https://shop.example/'), 'https://cdn.example/x');
    for (const bad of [
      'mailto:a@b.example',
      'javascript:alert(1)',
      'ftp://shop.example/',
      'https://u:p@shop.example/',
      'http://',
    ]) {
      assert.equal(normalizeUrl(bad, 'https://shop.example/'), null, bad);
    }
  });
});

describe('originOf and hasBinaryExtension', () => {
  test('origin is scheme, host and port exactly', () => {
    assert.equal(originOf('https://shop.example:443/x'), 'https://shop.example');
    assert.notEqual(originOf('https://www.shop.example/'), originOf('https://shop.example/'));
    assert.equal(originOf('not a url'), '');
  });

  test('binary extensions by path only, case-insensitive', () => {
    for (const url of [
      'https://s.example/a.pdf',
      'https://s.example/b.JPG?x=1',
      'https://s.example/c.tar.gz',
      'https://s.example/d.zip#x',
    ]) {
      assert.equal(hasBinaryExtension(url), true, url);
    }
    for (const url of [
      'https://s.example/',
      'https://s.example/a.html',
      'https://s.example/b.php?f=x.pdf',
      'https://s.example/v1.2/guide',
      'https://s.example/.well-known',
    ]) {
      assert.equal(hasBinaryExtension(url), false, url);
    }
  });
});
