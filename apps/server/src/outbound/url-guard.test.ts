import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeUnsafeAddress } from './ip-policy.js';
import { checkUrl, type Resolve } from './url-guard.js';

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

/** A resolver that never touches the network: answers from `zone`, ENOTFOUND otherwise; counts calls. */
function fakeResolver(zone: Record<string, string[]>): Resolve & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<string[]> => {
    calls.push(hostname);
    const answer = zone[hostname];
    if (answer === undefined)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answer;
  };
  return Object.assign(resolve, { calls });
}

const zone: Record<string, string[]> = {
  'example.com': [PUBLIC_V4, PUBLIC_V6],
  'rebind.example': ['127.0.0.1'],
  'mixed.example': [PUBLIC_V4, '10.0.0.7'],
  'mapped.example': ['::ffff:169.254.169.254'],
  'v6private.example': ['fd12:3456::1'],
  'empty.example': [],
  'garbage.example': ['not-an-ip'],
};

// [url, category the reason must mention]. Every one must be refused without a connection.
const hostile: ReadonlyArray<readonly [string, RegExp]> = [
  ['http://127.0.0.1/', /127\.0\.0\.1 is a loopback address/],
  ['http://127.0.0.1:6379/', /loopback/],
  ['http://2130706433/', /127\.0\.0\.1 is a loopback/],
  ['http://0x7f000001/', /loopback/],
  ['http://0x7f.0.0.1/', /loopback/],
  ['http://0177.0.0.1/', /loopback/],
  ['http://0177.0.0.01/', /loopback/],
  ['http://127.1/', /loopback/],
  ['http://127.0.0.1./', /loopback/],
  ['http://%31%32%37.0.0.1/', /loopback/],
  ['http://\u2460\u2461\u2466.0.0.1/', /loopback/],
  ['http://10.1/', /10\.0\.0\.1 is a private address/],
  ['http://172.16.5.4/', /private/],
  ['http://192.168.1.1/', /private/],
  ['http://0xc0a80101/', /192\.168\.1\.1 is a private/],
  [
    'http://169.254.169.254/latest/meta-data/',
    /169\.254\.169\.254 is a link-local address \(cloud metadata\)/,
  ],
  ['http://0xa9fea9fe/', /link-local address \(cloud metadata\)/],
  ['http://2852039166/', /link-local address \(cloud metadata\)/],
  ['http://100.100.100.200/', /carrier-grade NAT.*cloud metadata/],
  ['http://168.63.129.16/', /cloud metadata/],
  ['http://100.64.0.1/', /carrier-grade NAT/],
  ['http://0.0.0.0/', /unspecified/],
  ['http://0/', /unspecified/],
  ['http://224.0.0.1/', /multicast/],
  ['http://255.255.255.255/', /broadcast/],
  ['http://240.0.0.1/', /reserved/],
  ['http://198.18.0.1/', /benchmarking/],
  ['http://192.0.2.1/', /documentation/],
  ['http://203.0.113.9/', /documentation/],
  ['http://[::1]/', /::1 is a loopback/],
  ['http://[0:0:0:0:0:0:0:1]/', /loopback/],
  ['http://[::]/', /unspecified/],
  ['http://[::ffff:127.0.0.1]/', /IPv4-mapped form of 127\.0\.0\.1, a loopback/],
  ['http://[::ffff:7f00:1]/', /IPv4-mapped.*loopback/],
  ['http://[::ffff:a9fe:a9fe]/', /IPv4-mapped.*link-local.*cloud metadata/],
  ['http://[::ffff:0:10.0.0.1]/', /IPv4-translated.*private/],
  ['http://[::127.0.0.1]/', /IPv4-compatible form of 127\.0\.0\.1, a loopback/],
  ['http://[::8.8.8.8]/', /deprecated IPv4-compatible/],
  ['http://[64:ff9b::10.0.0.1]/', /NAT64 form of 10\.0\.0\.1, a private/],
  ['http://[64:ff9b::a9fe:a9fe]/', /NAT64.*cloud metadata/],
  ['http://[64:ff9b:1::1]/', /local-use NAT64/],
  ['http://[2002:c0a8:101::1]/', /6to4 form of 192\.168\.1\.1, a private/],
  ['http://[2002:7f00:1::]/', /6to4.*loopback/],
  ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', /Teredo form of 127\.0\.0\.1, a loopback/],
  ['http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/', /Teredo tunnel/],
  ['http://[fe80::1]/', /link-local/],
  ['http://[fc00::1]/', /unique local/],
  ['http://[fd00:ec2::254]/', /unique local.*cloud metadata/],
  ['http://[fec0::1]/', /site-local/],
  ['http://[ff02::1]/', /multicast/],
  ['http://[2001:db8::1]/', /documentation/],
  ['http://[100::1]/', /discard/],
  ['http://localhost/', /localhost is a local or internal host name/],
  ['http://LOCALHOST./', /localhost is a local or internal/],
  ['http://api.localhost:8080/', /local or internal/],
  [
    'http://metadata.google.internal/computeMetadata/v1/',
    /metadata\.google\.internal is a local or internal/,
  ],
  ['http://metadata/', /local or internal/],
  ['http://db.corp.internal/', /local or internal/],
  ['http://printer.local/', /local or internal/],
  ['http://router.home.arpa/', /local or internal/],
  ['ftp://example.com/', /scheme ftp: is not allowed/],
  ['file:///etc/passwd', /scheme file: is not allowed/],
  ['gopher://127.0.0.1:6379/_INFO', /scheme gopher: is not allowed/],
  ['javascript:alert(1)', /scheme javascript: is not allowed/],
  ['http://user:secret@example.com/', /credentials/],
  ['http://example.com@127.0.0.1/', /credentials/],
  ['not a url', /not valid/],
  ['http://rebind.example/', /rebind\.example resolves to 127\.0\.0\.1, a loopback/],
  ['http://mixed.example/', /mixed\.example resolves to 10\.0\.0\.7, a private/],
  ['http://mapped.example/', /resolves to ::ffff:a9fe:a9fe, an IPv4-mapped.*cloud metadata/],
  ['http://v6private.example/', /unique local/],
  ['http://garbage.example/', /not a valid IP address/],
  ['http://nxdomain.example/', /DNS lookup for nxdomain\.example failed \(ENOTFOUND\)/],
  ['http://empty.example/', /DNS lookup for empty\.example returned no addresses/],
];

describe('checkUrl refuses hostile URLs before any connection', () => {
  for (const [url, category] of hostile) {
    test(url, async () => {
      const resolve = fakeResolver(zone);
      const verdict = await checkUrl(url, { resolve });
      assert.equal(verdict.ok, false, `${url} must be refused`);
      if (verdict.ok) return;
      assert.match(verdict.reason, /^refused: /);
      assert.match(verdict.reason, category);
      // Names decided by their spelling (IP literals, local names, schemes) never reach DNS.
      const hostname = URL.canParse(url) ? new URL(url).hostname : '';
      if (!hostname.endsWith('.example')) assert.deepEqual(resolve.calls, []);
    });
  }

  test('the table covers at least 20 spellings', () => {
    assert.ok(hostile.length >= 20, String(hostile.length));
  });
});

describe('checkUrl lets public URLs through (without connecting)', () => {
  test('a name is resolved once and every address returned', async () => {
    const resolve = fakeResolver(zone);
    const verdict = await checkUrl('https://Example.com/docs?q=1', { resolve });
    assert.ok(verdict.ok);
    assert.equal(verdict.url.hostname, 'example.com');
    assert.deepEqual(verdict.addresses, [PUBLIC_V4, PUBLIC_V6]);
    assert.deepEqual(resolve.calls, ['example.com']);
  });

  test('public IP literals pass without DNS', async () => {
    for (const [url, address] of [
      ['http://8.8.8.8/', '8.8.8.8'],
      ['http://134744072/', '8.8.8.8'],
      ['https://[2606:4700:4700::1111]/', '2606:4700:4700::1111'],
      ['http://[::ffff:8.8.8.8]/', '::ffff:808:808'],
      ['http://[64:ff9b::8.8.8.8]/', '64:ff9b::808:808'],
      ['http://[2002:808:808::1]/', '2002:808:808::1'],
    ] as const) {
      const resolve = fakeResolver({});
      const verdict = await checkUrl(url, { resolve });
      assert.ok(verdict.ok, `${url}: ${verdict.ok ? '' : verdict.reason}`);
      assert.deepEqual(verdict.addresses, [address]);
      assert.deepEqual(resolve.calls, []);
    }
  });
});

describe('checkUrl honours SAFE_URL_ALLOW entries', () => {
  test('host:port lets exactly that port through', async () => {
    const allow = ['127.0.0.1:8080'];
    const allowed = await checkUrl('http://127.0.0.1:8080/x', { allow });
    assert.ok(allowed.ok);
    assert.deepEqual(allowed.addresses, ['127.0.0.1']);
    const otherPort = await checkUrl('http://127.0.0.1:8081/x', { allow });
    assert.equal(otherPort.ok, false);
  });

  test('the default port counts as explicit, per scheme', async () => {
    const allow = ['127.0.0.1:80'];
    assert.ok((await checkUrl('http://127.0.0.1/', { allow })).ok);
    assert.equal((await checkUrl('https://127.0.0.1/', { allow })).ok, false);
  });

  test('a bare host allows every port; a name still resolves (fail closed)', async () => {
    const resolve = fakeResolver({ localhost: ['127.0.0.1', '::1'] });
    const verdict = await checkUrl('http://LocalHost:3000/', { allow: ['localhost'], resolve });
    assert.ok(verdict.ok);
    assert.deepEqual(verdict.addresses, ['127.0.0.1', '::1']);
    const failing = await checkUrl('http://dev.internal/', { allow: ['dev.internal'], resolve });
    assert.equal(failing.ok, false);
    assert.match(failing.ok ? '' : failing.reason, /DNS lookup for dev\.internal failed/);
  });

  test('IPv6 entries match with brackets', async () => {
    assert.ok((await checkUrl('http://[::1]:9000/', { allow: ['[::1]:9000'] })).ok);
    assert.equal((await checkUrl('http://[::1]:9001/', { allow: ['[::1]:9000'] })).ok, false);
  });

  test('an entry never relaxes the scheme or credential rules', async () => {
    assert.equal((await checkUrl('ftp://127.0.0.1/', { allow: ['127.0.0.1'] })).ok, false);
    assert.equal((await checkUrl('http://a:b@127.0.0.1/', { allow: ['127.0.0.1'] })).ok, false);
  });
});

describe('describeUnsafeAddress', () => {
  test('public unicast is undefined, special ranges are named', () => {
    assert.equal(describeUnsafeAddress('1.1.1.1'), undefined);
    assert.equal(describeUnsafeAddress('2a00:1450:4001:82b::200e'), undefined);
    assert.equal(describeUnsafeAddress('172.15.255.255'), undefined);
    assert.equal(describeUnsafeAddress('172.32.0.1'), undefined);
    assert.match(describeUnsafeAddress('172.31.255.255') ?? '', /private/);
    assert.match(describeUnsafeAddress('100.127.255.255') ?? '', /carrier-grade/);
    assert.equal(describeUnsafeAddress('100.128.0.0'), undefined);
    assert.match(describeUnsafeAddress('169.254.170.2') ?? '', /cloud metadata/);
    assert.match(describeUnsafeAddress('192.175.48.1') ?? '', /special-purpose/);
    assert.match(describeUnsafeAddress('4000::1') ?? '', /reserved/);
    assert.match(describeUnsafeAddress('fe80::1%eth0') ?? '', /link-local/);
    assert.match(describeUnsafeAddress('example.com') ?? '', /not a valid IP/);
  });
});
