import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { buildConnector } from 'undici';
import { type ConnectHook, pinnedLookup, safeFetch } from '../src/outbound/index.js';

// Every server binds to 127.0.0.1 only, and every fetch below either is refused before connecting
// or goes through `loopbackOnly`, which opens no socket to anything but 127.0.0.1: a broken guard
// could at worst reach these counting servers, never another host.

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type CountingServer = { port: number; requests: IncomingMessage[]; close: () => Promise<void> };

async function startServer(handler: Handler): Promise<CountingServer> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    port: address.port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const attempts: string[][] = [];
/** Connects (through the pinned lookup) only when every vetted address is 127.0.0.1; records each attempt. */
const loopbackOnly: ConnectHook = (target, callback) => {
  attempts.push([...target.addresses]);
  if (!target.addresses.every((address) => address === '127.0.0.1')) {
    callback(new Error('test: non-loopback connection blocked'), null);
    return;
  }
  buildConnector({ lookup: target.lookup, timeout: 2000 })(target, callback);
};

/** A resolver for tests that must not resolve anything. */
const noDns = async (hostname: string): Promise<string[]> => {
  throw new Error(`test: unexpected DNS lookup of ${hostname}`);
};

function reasonOf(result: { ok: true } | { ok: false; reason: string }): string {
  return result.ok ? '(fetched)' : result.reason;
}

let site: CountingServer;
let other: CountingServer;
let silent: CountingServer;

before(async () => {
  other = await startServer((_req, res) => res.end('other'));
  silent = await startServer(() => {
    // Never answers: the timeout test waits on this.
  });
  site = await startServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const redirect = (location: string): void => {
      res.writeHead(302, { location });
      res.end();
    };
    if (path === '/') res.end('hello');
    else if (path === '/json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"a":1}');
    } else if (path === '/echo') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => res.end(`${req.method} ${req.headers.host} ${Buffer.concat(chunks).toString()}`));
    } else if (path === '/to-metadata') redirect('http://169.254.169.254/latest/meta-data/');
    else if (path === '/to-localhost') redirect(`http://localhost:${other.port}/`);
    else if (path === '/to-other-port') redirect(`http://127.0.0.1:${other.port}/`);
    else if (path === '/to-decimal') redirect(`http://2130706433:${other.port}/`);
    else if (path === '/relative') redirect('/json?from=relative');
    else if (path === '/loop') redirect('/loop');
    else if (path.startsWith('/bytes/')) {
      const size = Number(path.slice('/bytes/'.length));
      res.end(Buffer.alloc(size, 0x61));
    } else if (path.startsWith('/stream/')) {
      // Chunked, no Content-Length: the cap must hold while streaming.
      const size = Number(path.slice('/stream/'.length));
      for (let sent = 0; sent < size; sent += 100) res.write(Buffer.alloc(Math.min(100, size - sent), 0x62));
      res.end();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
});

after(async () => {
  await Promise.all([site.close(), other.close(), silent.close()]);
});

describe('safeFetch refuses loopback in every spelling (no allow list)', () => {
  test('the server is never contacted', async () => {
    const urls = [
      `http://127.0.0.1:${site.port}/`,
      `http://localhost:${site.port}/`,
      `http://0x7f000001:${site.port}/`,
      `http://[::ffff:127.0.0.1]:${site.port}/`,
      `http://2130706433:${site.port}/`,
      `http://127.1:${site.port}/`,
      `http://0177.0.0.1:${site.port}/`,
      `http://[::1]:${site.port}/`,
    ];
    for (const url of urls) {
      const result = await safeFetch(url, { resolve: noDns });
      assert.equal(result.ok, false, url);
      assert.match(reasonOf(result), /^refused: .*(loopback|local or internal host name)/, url);
    }
    assert.equal(site.requests.length, 0);
  });
});

describe('safeFetch with SAFE_URL_ALLOW', () => {
  test('an allowed host:port is fetched', async () => {
    const before = site.requests.length;
    const result = await safeFetch(`http://127.0.0.1:${site.port}/json#fragment`, {
      allow: [`127.0.0.1:${site.port}`],
    });
    assert.ok(result.ok, reasonOf(result));
    assert.equal(result.status, 200);
    assert.equal(result.body.toString(), '{"a":1}');
    assert.equal(result.contentType, 'application/json');
    assert.equal(result.headers['content-type'], 'application/json');
    assert.equal(result.url, `http://127.0.0.1:${site.port}/json#fragment`);
    assert.equal(site.requests.length, before + 1);
    assert.equal(site.requests.at(-1)?.url, '/json');
  });

  test('a name connects only to its vetted address (real pinned lookup), POST body sent', async () => {
    const result = await safeFetch(`http://app.test:${site.port}/echo`, {
      allow: [`app.test:${site.port}`],
      resolve: async (hostname) => (hostname === 'app.test' ? ['127.0.0.1'] : []),
      method: 'POST',
      headers: { 'content-type': 'text/plain', Host: 'evil.example' },
      body: 'ping',
    });
    assert.ok(result.ok, reasonOf(result));
    assert.equal(result.body.toString(), `POST app.test:${site.port} ping`);
  });

  test('accept() refuses a content type before the body is read', async () => {
    const result = await safeFetch(`http://127.0.0.1:${site.port}/json`, {
      allow: [`127.0.0.1:${site.port}`],
      accept: (type) => type.startsWith('text/html'),
    });
    assert.equal(reasonOf(result), 'refused: content type application/json is not accepted');
  });
});

describe('safeFetch re-checks every redirect', () => {
  const allow = (): string[] => [`127.0.0.1:${site.port}`];

  test('a redirect to the cloud metadata address is refused; nothing else is dialled', async () => {
    attempts.length = 0;
    const result = await safeFetch(`http://127.0.0.1:${site.port}/to-metadata`, {
      allow: allow(),
      connect: loopbackOnly,
    });
    assert.equal(reasonOf(result), 'refused: 169.254.169.254 is a link-local address (cloud metadata)');
    assert.deepEqual(attempts, [['127.0.0.1']]);
  });

  for (const [path, reason] of [
    ['/to-localhost', /^refused: localhost is a local or internal host name$/],
    ['/to-other-port', /^refused: 127\.0\.0\.1 is a loopback address$/],
    ['/to-decimal', /^refused: 127\.0\.0\.1 is a loopback address$/],
  ] as const) {
    test(`${path}: the second server is never contacted`, async () => {
      const result = await safeFetch(`http://127.0.0.1:${site.port}${path}`, {
        allow: allow(),
        resolve: noDns,
        connect: loopbackOnly,
      });
      assert.match(reasonOf(result), reason);
      assert.equal(other.requests.length, 0);
    });
  }

  test('a relative Location is resolved against the current URL', async () => {
    const result = await safeFetch(`http://127.0.0.1:${site.port}/relative`, { allow: allow() });
    assert.ok(result.ok, reasonOf(result));
    assert.equal(result.url, `http://127.0.0.1:${site.port}/json?from=relative`);
    assert.equal(result.body.toString(), '{"a":1}');
  });

  test('a redirect loop is refused after maxRedirects (n allowed, n+1 refused)', async () => {
    const before = site.requests.length;
    const result = await safeFetch(`http://127.0.0.1:${site.port}/loop`, { allow: allow(), maxRedirects: 3 });
    assert.equal(reasonOf(result), 'refused: more than 3 redirects');
    assert.equal(site.requests.length - before, 4);
  });
});

describe('safeFetch limits', () => {
  const allow = (): string[] => [`127.0.0.1:${site.port}`];

  test('a body of exactly maxBytes is accepted, one byte more is refused', async () => {
    const exact = await safeFetch(`http://127.0.0.1:${site.port}/bytes/1000`, {
      allow: allow(),
      maxBytes: 1000,
    });
    assert.ok(exact.ok, reasonOf(exact));
    assert.equal(exact.body.length, 1000);
    const over = await safeFetch(`http://127.0.0.1:${site.port}/bytes/1001`, {
      allow: allow(),
      maxBytes: 1000,
    });
    assert.equal(reasonOf(over), 'refused: response larger than 1000 bytes');
  });

  test('the cap holds on a chunked body without Content-Length', async () => {
    const over = await safeFetch(`http://127.0.0.1:${site.port}/stream/5000`, {
      allow: allow(),
      maxBytes: 1000,
    });
    assert.equal(reasonOf(over), 'refused: response larger than 1000 bytes');
    const under = await safeFetch(`http://127.0.0.1:${site.port}/stream/900`, {
      allow: allow(),
      maxBytes: 1000,
    });
    assert.ok(under.ok, reasonOf(under));
    assert.equal(under.body.length, 900);
  });

  test('a server that never answers times out, bounded', async () => {
    const started = Date.now();
    const result = await safeFetch(`http://127.0.0.1:${silent.port}/`, {
      allow: [`127.0.0.1:${silent.port}`],
      timeoutMs: 300,
    });
    assert.equal(reasonOf(result), 'refused: timed out after 300 ms');
    assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
    assert.equal(silent.requests.length, 1);
  });

  test('a network error is a reason, not an exception', async () => {
    const closed = await startServer((_req, res) => res.end());
    const port = closed.port;
    await closed.close();
    const result = await safeFetch(`http://127.0.0.1:${port}/`, { allow: [`127.0.0.1:${port}`] });
    assert.match(reasonOf(result), /^failed: request to http:\/\/127\.0\.0\.1:\d+ failed \(ECONNREFUSED\)$/);
  });
});

describe('DNS rebinding: the connection is pinned to the vetted address', () => {
  test('a second, different DNS answer is never used', async () => {
    const calls: string[] = [];
    // First answer public, every later one loopback: a re-resolving client would be rebound.
    const resolve = async (hostname: string): Promise<string[]> => {
      calls.push(hostname);
      return calls.length === 1 ? ['93.184.215.14'] : ['127.0.0.1'];
    };
    const seen: { hostname: string; addresses: string[]; answer: LookupAddress[]; otherError: string }[] = [];
    // Records what the socket layer would dial and fails it without opening anything.
    const spy: ConnectHook = (target, callback) => {
      target.lookup(target.hostname, { all: true }, (_error, answer) => {
        target.lookup('other.example', { all: true }, (otherError) => {
          seen.push({
            hostname: target.hostname,
            addresses: [...target.addresses],
            answer: Array.isArray(answer) ? answer : [],
            otherError: otherError?.code ?? '',
          });
          callback(new Error('test: connection blocked'), null);
        });
      });
    };
    const result = await safeFetch('http://rebind.example/', { resolve, connect: spy });
    assert.match(
      reasonOf(result),
      /^failed: request to http:\/\/rebind\.example failed \(test: connection blocked\)$/,
    );
    assert.deepEqual(calls, ['rebind.example']);
    assert.deepEqual(seen, [
      {
        hostname: 'rebind.example',
        addresses: ['93.184.215.14'],
        answer: [{ address: '93.184.215.14', family: 4 }],
        otherError: 'ENOTFOUND',
      },
    ]);
  });

  test('pinnedLookup answers only its host, filtered by family', async () => {
    const lookup = pinnedLookup('Dual.Example', ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
    const single = await new Promise<string>((resolve, reject) =>
      lookup('dual.example.', { family: 6 }, (error, address) =>
        error ? reject(error) : resolve(typeof address === 'string' ? address : ''),
      ),
    );
    assert.equal(single, '2606:2800:21f:cb07:6820:80da:af6b:8b2c');
    const refused = await new Promise<string>((resolve) =>
      lookup('169.254.169.254.nip.io', { all: true }, (error) => resolve(error?.code ?? '')),
    );
    assert.equal(refused, 'ENOTFOUND');
  });
});
