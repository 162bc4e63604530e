import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readOrderQuestion } from './order-intent.js';

describe('readOrderQuestion', () => {
  test('questions about the visitor’s own orders, in several languages', () => {
    for (const question of [
      'Where is my order?',
      "where's my package",
      'Can you track my parcel please',
      'What is the status of my last order?',
      'Où en est ma commande ?',
      'Wo ist meine Bestellung?',
      '¿Dónde está mi pedido?',
      'Qual o status do meu pedido?',
      'Waar is mijn bestelling?',
    ]) {
      assert.deepEqual(readOrderQuestion(question), { orderNumber: null }, question);
    }
  });

  test('an order number is read with or without a marker, kept as typed', () => {
    assert.deepEqual(readOrderQuestion('What about order #1002?'), { orderNumber: '1002' });
    assert.deepEqual(readOrderQuestion('order number NW-1001 has not arrived'), { orderNumber: 'NW-1001' });
    assert.deepEqual(readOrderQuestion('Commande n° 4711 ?'), { orderNumber: '4711' });
    assert.deepEqual(readOrderQuestion('is order nw-1003 shipped'), { orderNumber: 'nw-1003' });
    assert.deepEqual(readOrderQuestion('#5512 still not here'), { orderNumber: '5512' });
  });

  test('knowledge questions about ordering, shipping and returns are not order lookups', () => {
    for (const question of [
      'How long does shipping take?',
      'Can I order 12 bags at once?',
      'What is your return policy for opened coffee?',
      'Do you ship to Canada?',
      'How do I place an order?',
      'Which coffee is best for espresso?',
    ]) {
      assert.equal(readOrderQuestion(question), null, question);
    }
  });
});
