import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, test } from 'node:test';
import { createApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { loadMigrations } from '../src/db/migrate.js';
import { createTestConfig, startTestQueue } from './support/test-app.js';
import { createTestDatabase } from './support/test-database.js';

const database = await createTestDatabase();
const queue = await startTestQueue(database);
after(async () => {
  await queue.stop(1_000);
  await database.close();
});

test('during shutdown a request in flight finishes and a new one gets a 503 envelope', async () => {
  const app = await createApp({
    clock: systemClock,
    config: await createTestConfig(),
    database,
    queue,
    expectedMigrations: (await loadMigrations()).length,
  });
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered = () => {};
  const inside = new Promise<void>((resolve) => {
    entered = resolve;
  });
  app.get('/test/slow', async () => {
    entered();
    await gate;
    return { finished: true };
  });
  let sawRefusal = () => {};
  const refused = new Promise<void>((resolve) => {
    sawRefusal = resolve;
  });
  app.addHook('onError', async (request) => {
    if (request.url === '/healthz') sawRefusal();
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  assert.ok(address && typeof address === 'object');

  // One keep-alive connection: the slow request is in flight when close begins, then a
  // second request arrives on the same connection (the only way a request reaches a closing server).
  const socket = connect(address.port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  socket.write('GET /test/slow HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
  await inside;
  const closing = app.close();
  socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
  await refused;
  release();
  await closing;
  await new Promise<void>((resolve) => {
    if (socket.destroyed) resolve();
    else socket.on('close', () => resolve());
  });

  const responses = received.split(/(?=HTTP\/1\.1 )/);
  assert.equal(responses.length, 2, received);
  assert.match(responses[0] ?? '', /^HTTP\/1\.1 200 /);
  assert.match(responses[0] ?? '', /\{"finished":true\}/);
  assert.match(responses[1] ?? '', /^HTTP\/1\.1 503 /);
  assert.match(responses[1] ?? '', /connection: close/i);
  assert.match(
    responses[1] ?? '',
    /\{"message":"The service is shutting down.","code":"not_ready","errors":\{\}\}/,
  );
});
