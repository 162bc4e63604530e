import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeAllowedOrigin, normalizeOrigin } from './origin.js';

describe('normalizeOrigin', () => {
  test('trims, lower-cases and strips trailing slashes', () => {
    assert.equal(normalizeOrigin('  https://shop.example.com  '), 'https://shop.example.com');
    assert.equal(normalizeOrigin('\thttps://shop.example.com\n'), 'https://shop.example.com');
    assert.equal(normalizeOrigin('HTTPS://Shop.Example.COM'), 'https://shop.example.com');
    assert.equal(normalizeOrigin('https://shop.example.com/'), 'https://shop.example.com');
    assert.equal(normalizeOrigin('https://shop.example.com//'), 'https://shop.example.com');
    assert.equal(normalizeOrigin('HTTPS://Shop.Example.com:443/'), 'https://shop.example.com');
  });

  test('drops the default port of the scheme and keeps every other port', () => {
    assert.equal(normalizeOrigin('http://example.com:80'), 'http://example.com');
    assert.equal(normalizeOrigin('https://example.com:443'), 'https://example.com');
    assert.equal(normalizeOrigin('http://a.com:080'), 'http://a.com');
    // 443 is not http's default and 80 not https's: both stay.
    assert.equal(normalizeOrigin('http://example.com:443'), 'http://example.com:443');
    assert.equal(normalizeOrigin('https://example.com:80'), 'https://example.com:80');
    assert.equal(normalizeOrigin('https://example.com:8443/'), 'https://example.com:8443');
    assert.equal(normalizeOrigin('http://localhost:3000'), 'http://localhost:3000');
  });

  test('accepts IPv4 and IPv6 literal hosts in canonical form', () => {
    assert.equal(normalizeOrigin('http://127.0.0.1:8080'), 'http://127.0.0.1:8080');
    assert.equal(normalizeOrigin('http://[::1]:8080'), 'http://[::1]:8080');
    assert.equal(normalizeOrigin('http://[::1]:80/'), 'http://[::1]');
    assert.equal(normalizeOrigin('https://[2001:DB8::1]'), 'https://[2001:db8::1]');
    assert.equal(normalizeOrigin('https://[2001:db8:0:0:0:0:0:1]:443'), 'https://[2001:db8::1]');
    assert.equal(normalizeOrigin('https://[2001:db8::1]:8443'), 'https://[2001:db8::1]:8443');
  });

  test('encodes internationalised host names as punycode, as browsers send them', () => {
    assert.equal(normalizeOrigin('https://BÜCHER.de'), 'https://xn--bcher-kva.de');
  });

  test('rejects paths, queries and fragments', () => {
    for (const input of [
      'https://example.com/path',
      'https://example.com/path/',
      'https://example.com/?',
      'https://example.com?q=1',
      'https://example.com/#',
      'https://example.com#top',
      'https://example.com:8443/app',
    ]) {
      assert.equal(normalizeOrigin(input), null, input);
    }
  });

  test('rejects credentials', () => {
    for (const input of [
      'https://user@example.com',
      'https://user:pw@example.com',
      'https://:pw@example.com',
    ]) {
      assert.equal(normalizeOrigin(input), null, input);
    }
  });

  test('rejects schemes other than http and https', () => {
    for (const input of [
      'ftp://example.com',
      'ws://example.com',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'javascript://example.com',
      'data:text/html,hi',
      'example.com',
      '//example.com',
    ]) {
      assert.equal(normalizeOrigin(input), null, input);
    }
  });

  test('rejects empty, whitespace-only, host-less and unparsable input', () => {
    for (const input of [
      '',
      '   ',
      'https://',
      'https:///',
      'https:example.com',
      'https:/example.com',
      'https://exa mple.com',
      'http://example.com:65536',
      'https://example.com%2F',
      'null',
    ]) {
      assert.equal(normalizeOrigin(input), null, JSON.stringify(input));
    }
  });

  test('does not accept the wildcard', () => {
    assert.equal(normalizeOrigin('*'), null);
    assert.equal(normalizeOrigin(' * '), null);
  });

  test('rejects a path written with a backslash (the URL parser reads \\ as /)', () => {
    assert.equal(normalizeOrigin('https://example.com\\evil'), null);
  });

  test('rejects a wildcard host pattern (no subdomain inference, so it could never match)', () => {
    assert.equal(normalizeOrigin('https://*.example.com'), null);
  });
});

describe('normalizeAllowedOrigin', () => {
  test('keeps * (trimmed) as the allow-all entry', () => {
    assert.equal(normalizeAllowedOrigin('*'), '*');
    assert.equal(normalizeAllowedOrigin('  *  '), '*');
  });

  test('normalises every other entry exactly like normalizeOrigin', () => {
    for (const input of ['HTTPS://Shop.Example.com:443/', 'http://[::1]:8080', 'http://localhost:3000/']) {
      assert.equal(normalizeAllowedOrigin(input), normalizeOrigin(input), input);
      assert.notEqual(normalizeAllowedOrigin(input), null, input);
    }
    assert.equal(normalizeAllowedOrigin('HTTPS://Shop.Example.com:443/'), 'https://shop.example.com');
  });

  test('rejects what normalizeOrigin rejects, and wildcards other than a lone *', () => {
    for (const input of [
      '',
      '**',
      '*.example.com',
      'https://example.com/path',
      'https://user:pw@example.com',
      'ftp://example.com',
      'javascript:alert(1)',
      'data:text/html,hi',
    ]) {
      assert.equal(normalizeAllowedOrigin(input), null, JSON.stringify(input));
    }
  });
});
