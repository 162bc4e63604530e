import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readVisitorIntent } from './visitor-intent.js';
import { fixedVisitorReply } from './visitor-reply.js';

describe('readVisitorIntent', () => {
  test('greetings, thanks and goodbyes that are the whole message are small talk, in their own language', () => {
    const cases: Array<[string, string, string, string]> = [
      ['hi', 'en', 'greeting', 'en'],
      ['Hello there!', 'en', 'greeting', 'en'],
      ['Bonjour', 'en', 'greeting', 'fr'],
      ['Hallo', 'nl', 'greeting', 'nl'],
      ['Hallo', 'en', 'greeting', 'de'],
      ['¡Hola!', 'es', 'greeting', 'es'],
      ['thanks', 'en', 'thanks', 'en'],
      ['Thank you so much, that helps 🙏', 'en', 'thanks', 'en'],
      ['Merci beaucoup !', 'fr', 'thanks', 'fr'],
      ['Danke!', 'de', 'thanks', 'de'],
      ['bye', 'en', 'goodbye', 'en'],
      ['Au revoir', 'fr', 'goodbye', 'fr'],
    ];
    for (const [message, visitor, act, language] of cases) {
      assert.deepEqual(readVisitorIntent(message, visitor), { kind: 'smalltalk', act, language }, message);
    }
  });

  test('a greeting or thanks with a question is a question; so is a long message or another word', () => {
    for (const message of [
      'hi, how much is shipping?',
      'thanks?',
      'Hello, do you ship to Canada',
      'hip hop',
      'history of the roastery',
      `thanks ${'a '.repeat(60)}`,
      'bonjour la livraison est-elle gratuite',
    ]) {
      assert.equal(readVisitorIntent(message, 'en'), null, message);
    }
  });

  test('an explicit request for a person is recognised in the service languages', () => {
    const cases: Array<[string, string]> = [
      ['I want to talk to a human', 'en'],
      ['Can I speak to a real person please?', 'en'],
      ['human please', 'en'],
      ['Please connect me to an agent', 'en'],
      ['Je voudrais parler à un conseiller', 'fr'],
      ["Je peux parler à quelqu'un ?", 'fr'],
      ['Ich möchte mit einem Mitarbeiter sprechen', 'de'],
      ['Quiero hablar con una persona', 'es'],
      ['Quero falar com um atendente', 'pt'],
      ['Vorrei parlare con un operatore', 'it'],
      ['Ik wil met een medewerker spreken', 'nl'],
    ];
    for (const [message, language] of cases) {
      assert.deepEqual(readVisitorIntent(message, 'en'), { kind: 'human', language }, message);
    }
  });

  test('mentioning people or agents without asking for one is no request', () => {
    for (const message of [
      'Do you sell human hair?',
      'How many persons does a 1 kg bag serve?',
      'Who is your shipping agent?',
      'What does the team roast on Mondays?',
    ]) {
      assert.equal(readVisitorIntent(message, 'en'), null, message);
    }
  });

  test('hostile input: only the first 300 characters are read; long runs of words are read (no backtracking blow-up)', () => {
    assert.equal(readVisitorIntent(`${'x'.repeat(300)} talk to a human`, 'en'), null);
    assert.equal(readVisitorIntent(`${'talk to '.repeat(5000)}!`, 'en'), null);
    assert.equal(readVisitorIntent(`thanks${' word'.repeat(5000)}`, 'en'), null);
    assert.equal(readVisitorIntent(`talk to a human${'!'.repeat(5000)}`, 'en')?.kind, 'human');
  });
});

describe('fixedVisitorReply', () => {
  const intent = (message: string) => readVisitorIntent(message, 'en');

  test('a request for a person calls requestHuman and says so, with or without a model', async () => {
    for (const offline of [true, false]) {
      let requested = 0;
      const reply = await fixedVisitorReply({
        intent: intent('Je voudrais parler à un conseiller'),
        language: 'en',
        offline,
        humanAvailable: true,
        requestHuman: async () => {
          requested += 1;
        },
      });
      assert.equal(requested, 1);
      assert.deepEqual(reply, {
        text: "J'ai demandé à un membre de notre équipe de rejoindre la conversation. Il vous répondra ici dès que possible.",
        answered: true,
      });
    }
  });

  test('with human takeover off nothing is requested and the reply says no one can join', async () => {
    let requested = 0;
    const reply = await fixedVisitorReply({
      intent: intent('talk to a human'),
      language: 'de',
      offline: true,
      humanAvailable: false,
      requestHuman: async () => {
        requested += 1;
      },
    });
    assert.equal(requested, 0);
    assert.equal(reply?.answered, false);
    assert.match(reply?.text ?? '', /no one from the team/);
  });

  test('small talk gets a short reply offline; a model answers it itself', async () => {
    const base = { language: 'fr', humanAvailable: true, requestHuman: async () => {} };
    assert.deepEqual(await fixedVisitorReply({ ...base, intent: intent('merci'), offline: true }), {
      text: 'Avec plaisir ! Puis-je vous aider pour autre chose ?',
      answered: true,
    });
    assert.equal(await fixedVisitorReply({ ...base, intent: intent('merci'), offline: false }), null);
    assert.equal(await fixedVisitorReply({ ...base, intent: null, offline: true }), null);
  });
});
