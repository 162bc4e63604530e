import { type TWelcome, type TWelcomeContent, ZWelcome } from '@service/contract';
import type { AgentRow } from '../../db/schema.js';

/** Greetings a new agent starts with, in the languages the service knows (fixed-replies.ts). */
const GREETINGS: Readonly<Record<string, string>> = {
  en: 'Hi! How can I help you today?',
  de: 'Hallo! Wie kann ich Ihnen heute helfen?',
  fr: "Bonjour ! Comment puis-je vous aider aujourd'hui ?",
  es: '¡Hola! ¿En qué puedo ayudarle hoy?',
  pt: 'Olá! Como posso ajudar hoje?',
  it: 'Ciao! Come posso aiutarti oggi?',
  nl: 'Hallo! Waarmee kan ik u vandaag helpen?',
};

/** A shop's usual first questions (the synced catalogue and posts answer them). */
const SHOP_STARTERS: Readonly<Record<string, readonly string[]>> = {
  en: ['How long does delivery take?', 'What is your return policy?', 'Do you have a discount code?'],
  de: ['Wie lange dauert die Lieferung?', 'Wie funktioniert die Rückgabe?', 'Gibt es einen Rabattcode?'],
  fr: [
    'Quels sont les délais de livraison ?',
    'Comment fonctionnent les retours ?',
    'Avez-vous un code promo ?',
  ],
  es: ['¿Cuánto tarda el envío?', '¿Cuál es su política de devoluciones?', '¿Tienen un código de descuento?'],
  pt: ['Quanto tempo demora a entrega?', 'Qual é a política de devolução?', 'Têm algum código de desconto?'],
  it: ['Quanto tempo richiede la consegna?', 'Come funzionano i resi?', 'Avete un codice sconto?'],
  nl: ['Hoe lang duurt de levering?', 'Hoe werkt retourneren?', 'Hebben jullie een kortingscode?'],
};

/**
 * The welcome of an agent that has none set: a greeting, and a shop's usual questions on a shop,
 * in the languages the service knows.
 */
export function defaultWelcome(siteType: AgentRow['site_type']): TWelcome {
  const translations: TWelcome['translations'] = {};
  for (const [tag, greeting] of Object.entries(GREETINGS)) {
    if (tag === 'en') continue;
    translations[tag] = {
      greeting,
      starters: siteType === 'ecommerce' ? [...(SHOP_STARTERS[tag] ?? [])] : [],
    };
  }
  return {
    greeting: GREETINGS.en ?? '',
    starters: siteType === 'ecommerce' ? [...(SHOP_STARTERS.en ?? [])] : [],
    translations,
  };
}

// Built once: a stored welcome that no longer parses falls back to the defaults.
const ZStoredWelcome = ZWelcome.nullable().catch(null);

/** The agent's welcome as set, or the defaults for its site type (what init uses). */
export function storedWelcome(agent: Pick<AgentRow, 'welcome' | 'site_type'>): TWelcome {
  return ZStoredWelcome.parse(agent.welcome) ?? defaultWelcome(agent.site_type);
}

/**
 * The welcome as the admin API shows it: as set, or the English defaults without their
 * translations (an owner who edits the default greeting must not leave visitors of other
 * languages the stale default one; until a welcome is set, init still greets them in theirs).
 */
export function editableWelcome(agent: Pick<AgentRow, 'welcome' | 'site_type'>): TWelcome {
  return ZStoredWelcome.parse(agent.welcome) ?? { ...defaultWelcome(agent.site_type), translations: {} };
}

/**
 * The welcome in `language` (`de-at` takes `de` when there is no `de-at`): each of greeting and
 * starters from the translation when it gives them, else the default text. Null when there is
 * nothing to say.
 */
export function welcomeFor(welcome: TWelcome, language: string): TWelcomeContent | null {
  const tag = language.toLowerCase();
  const translation = welcome.translations[tag] ?? welcome.translations[tag.split('-')[0] ?? ''] ?? {};
  const greeting = translation.greeting ?? welcome.greeting;
  const starters = translation.starters ?? welcome.starters;
  return greeting === '' && starters.length === 0 ? null : { greeting, starters };
}
