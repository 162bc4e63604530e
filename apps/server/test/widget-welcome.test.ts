import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZAgent, ZWidgetAnswer, ZWidgetInitResponse } from '@service/contract';
import { contrastRatio } from '../src/services/widget/widget-theme.js';
import { expectData, expectValidation } from './support/http.js';
import { createTestApp, injectJson, type TestApp } from './support/test-app.js';
import { createWidgetAgent, initRequest, initSession, newAnonId, widgetCall } from './support/widget.js';

// The widget's welcome (admin API → init), its readable theme colours, and the "answer from our
// team" mark that survives a reload of the history.

describe('widget welcome', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(async () => {
    await t.close();
  });

  const patch = (agentId: string, auth: Record<string, string>, body: unknown) =>
    injectJson(t.app, 'PATCH', `/api/v1/admin/agents/${agentId}`, body, auth);
  const read = async (agentId: string, auth: Record<string, string>) =>
    expectData(
      await t.app.inject({ method: 'GET', url: `/api/v1/admin/agents/${agentId}`, headers: auth }),
      200,
      ZAgent,
    );

  test('a new agent has a greeting; a shop also gets starter questions', async () => {
    const { tenant, agentId } = await createWidgetAgent(t);
    const agent = await read(agentId, tenant.auth);
    assert.equal(agent.welcome.greeting, 'Hi! How can I help you today?');
    assert.deepEqual(agent.welcome.starters, []);
    assert.deepEqual(agent.welcome.translations, {}, 'the admin edits the default text');
    // Until a welcome is set, visitors are greeted in their language where the service knows it.
    const german = await initSession(t, agentId, { locale: 'de' });
    assert.equal(german.agent.welcome?.greeting, 'Hallo! Wie kann ich Ihnen heute helfen?');
    const shop = await createWidgetAgent(t, { site_type: 'ecommerce' }, tenant);
    const session = await initSession(t, shop.agentId);
    assert.equal(session.agent.welcome?.greeting, 'Hi! How can I help you today?');
    assert.equal(session.agent.welcome?.starters.length, 3);
    const austrian = await initSession(t, shop.agentId, { locale: 'de-AT' });
    assert.equal(austrian.agent.welcome?.starters[0], 'Wie lange dauert die Lieferung?');
  });

  test('the admin sets greeting, starters and translations; init answers in the visitor language', async () => {
    const { tenant, agentId } = await createWidgetAgent(t);
    const welcome = {
      greeting: '  Welcome to the roastery!  ',
      starters: ['How fresh is the coffee?', 'Do you ship abroad?'],
      translations: { de: { starters: ['Wie frisch ist der Kaffee?'] }, 'pt-br': { greeting: 'Bem-vindo!' } },
    };
    const saved = expectData(await patch(agentId, tenant.auth, { welcome }), 200, ZAgent);
    assert.equal(saved.welcome.greeting, 'Welcome to the roastery!', 'trimmed');
    const english = await initSession(t, agentId);
    assert.deepEqual(english.agent.welcome, {
      greeting: 'Welcome to the roastery!',
      starters: ['How fresh is the coffee?', 'Do you ship abroad?'],
    });
    // A translation replaces what it gives; the rest stays in the default text.
    const german = await initSession(t, agentId, { locale: 'de-CH' });
    assert.deepEqual(german.agent.welcome, {
      greeting: 'Welcome to the roastery!',
      starters: ['Wie frisch ist der Kaffee?'],
    });
    const brazil = await initSession(t, agentId, { locale: 'pt-BR' });
    assert.equal(brazil.agent.welcome?.greeting, 'Bem-vindo!');
    // Nothing to say: no welcome at all.
    await patch(agentId, tenant.auth, { welcome: { greeting: '', starters: [] } });
    assert.equal((await initSession(t, agentId)).agent.welcome, undefined);
    // null goes back to the defaults.
    const reset = expectData(await patch(agentId, tenant.auth, { welcome: null }), 200, ZAgent);
    assert.equal(reset.welcome.greeting, 'Hi! How can I help you today?');
  });

  test('bad welcomes are refused with the field named, and change nothing', async () => {
    const { tenant, agentId } = await createWidgetAgent(t);
    await patch(agentId, tenant.auth, { welcome: { greeting: 'Hello', starters: ['One'] } });
    const five = ['1', '2', '3', '4', '5'];
    expectValidation(await patch(agentId, tenant.auth, { welcome: { greeting: 'x', starters: five } }), [
      'welcome.starters',
    ]);
    // Four is the limit, and fits.
    const four = expectData(
      await patch(agentId, tenant.auth, { welcome: { greeting: 'Hello', starters: five.slice(0, 4) } }),
      200,
      ZAgent,
    );
    assert.equal(four.welcome.starters.length, 4);
    expectValidation(
      await patch(agentId, tenant.auth, { welcome: { greeting: 'x'.repeat(301), starters: [] } }),
      ['welcome.greeting'],
    );
    expectValidation(await patch(agentId, tenant.auth, { welcome: { greeting: 'x', starters: ['   '] } }), [
      'welcome.starters.0',
    ]);
    expectValidation(
      await patch(agentId, tenant.auth, { welcome: { greeting: 'x', starters: ['a\u0000b'] } }),
      ['welcome.starters.0'],
    );
    expectValidation(
      await patch(agentId, tenant.auth, {
        welcome: { greeting: 'x', starters: [], translations: { 'DE; drop': { greeting: 'x' } } },
      }),
      ['welcome.translations.DE; drop'],
    );
    expectValidation(
      await patch(agentId, tenant.auth, { welcome: { greeting: 'x', starters: [], extra: 1 } }),
      ['welcome.extra'],
    );
    const after = await read(agentId, tenant.auth);
    assert.deepEqual(after.welcome.starters, five.slice(0, 4), 'the refused updates changed nothing');
    assert.equal(after.welcome.greeting, 'Hello');
  });

  test('another workspace cannot change the welcome (404)', async () => {
    const { agentId } = await createWidgetAgent(t);
    const other = await createWidgetAgent(t);
    const res = await patch(agentId, other.tenant.auth, { welcome: { greeting: 'Hijacked', starters: [] } });
    assert.equal(res.statusCode, 404);
  });

  test('init sends text colours that pass WCAG AA on the primary and on white', async () => {
    for (const primary of ['#ffff00', '#1f6feb', '#777777', '#ff8800', '#000000']) {
      const { agentId } = await createWidgetAgent(t, { theme: { primary } });
      const { theme } = (await initSession(t, agentId)).agent;
      assert.equal(theme.primary, primary, 'the chosen colour itself is kept');
      assert.ok(contrastRatio(theme.on_primary ?? '', primary) >= 4.5, `${theme.on_primary} on ${primary}`);
      assert.ok(contrastRatio(theme.primary_text ?? '', '#ffffff') >= 4.5, `${theme.primary_text} on white`);
    }
  });
});

describe('answer from our team, in the history', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(async () => {
    await t.close();
  });

  test('the from_team mark is stored with the message and comes back at init', async () => {
    const { tenant, agentId } = await createWidgetAgent(t);
    const saved = await injectJson(
      t.app,
      'POST',
      `/api/v1/admin/agents/${agentId}/corrections`,
      { question: 'When is the shop open?', answer: 'From nine to six, Monday to Saturday.' },
      tenant.auth,
    );
    assert.equal(saved.statusCode, 201, saved.body);
    const anon = newAnonId();
    const first = expectData(
      await initRequest(t, { agent_id: agentId, anon_id: anon }),
      200,
      ZWidgetInitResponse,
    );
    const answer = expectData(
      await widgetCall(t, 'POST', '/v1/widget/messages', first.token, { message: 'when is the shop open' }),
      200,
      ZWidgetAnswer,
    );
    assert.equal(answer.from_team, true);
    const other = expectData(
      await widgetCall(t, 'POST', '/v1/widget/messages', first.token, { message: 'hello there' }),
      200,
      ZWidgetAnswer,
    );
    assert.notEqual(other.from_team, true);
    const again = expectData(
      await initRequest(t, { agent_id: agentId, anon_id: anon }),
      200,
      ZWidgetInitResponse,
    );
    assert.equal(again.conversation_id, first.conversation_id, 'resumed');
    const marked = again.messages
      .filter((message) => message.from_team === true)
      .map((message) => message.id);
    assert.deepEqual(marked, [answer.message_id], 'only the team answer carries the mark');
    assert.equal(
      again.agent.welcome?.greeting,
      'Hi! How can I help you today?',
      'init still sends the welcome',
    );
  });
});
