// Recognises the messages that are not questions about the site: small talk ("hi", "thanks",
// "bye") and an explicit request for a person. Like order-intent.ts, deliberately narrow: small
// talk must be the whole message (a greeting followed by a question is a question), and a
// request for a person must name one (a human, an agent, a colleague…) with a verb of talking.

/** What a message is, when it is not a question for retrieval. */
export type VisitorIntent =
  | { kind: 'smalltalk'; act: 'greeting' | 'thanks' | 'goodbye'; language: string | null }
  | { kind: 'human'; language: string | null };

type Phrase = { act: 'greeting' | 'thanks' | 'goodbye'; pattern: RegExp; languages: readonly string[] };

// Whole-message small talk, after punctuation and emoji are dropped and spaces collapsed.
// A few trailing words are allowed ("hello there", "thank you so much, that helps").
const TAIL = String.raw`(?:\s+[\p{L}']+){0,6}`;
const SMALL_TALK: readonly Phrase[] = [
  {
    act: 'greeting',
    languages: ['en'],
    pattern: /^(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening))(?: there| all| everyone| team)?$/u,
  },
  {
    act: 'greeting',
    languages: ['fr'],
    pattern: /^(?:bonjour|bonsoir|salut|coucou)(?: à tous| tout le monde)?$/u,
  },
  { act: 'greeting', languages: ['de', 'nl'], pattern: /^hallo(?: zusammen| allemaal)?$/u },
  { act: 'greeting', languages: ['de'], pattern: /^(?:guten (?:tag|morgen|abend)|servus|moin|grüß gott)$/u },
  { act: 'greeting', languages: ['es'], pattern: /^(?:hola|buen(?:os días|as tardes|as noches))$/u },
  { act: 'greeting', languages: ['pt'], pattern: /^(?:olá|oi|bom dia|boa tarde|boa noite)$/u },
  { act: 'greeting', languages: ['it'], pattern: /^(?:ciao|buongiorno|buonasera|salve)$/u },
  { act: 'greeting', languages: ['nl'], pattern: /^(?:hoi|goedemorgen|goedemiddag|goedenavond)$/u },
  {
    act: 'thanks',
    languages: ['en'],
    pattern: new RegExp(`^(?:thanks|thank you|thx|ty|cheers|many thanks)${TAIL}$`, 'u'),
  },
  { act: 'thanks', languages: ['fr'], pattern: new RegExp(`^merci${TAIL}$`, 'u') },
  { act: 'thanks', languages: ['de'], pattern: new RegExp(`^(?:danke|vielen dank)${TAIL}$`, 'u') },
  { act: 'thanks', languages: ['es'], pattern: new RegExp(`^(?:gracias|muchas gracias)${TAIL}$`, 'u') },
  {
    act: 'thanks',
    languages: ['pt'],
    pattern: new RegExp(`^(?:obrigad[oa]|muito obrigad[oa])${TAIL}$`, 'u'),
  },
  { act: 'thanks', languages: ['it'], pattern: new RegExp(`^(?:grazie|grazie mille)${TAIL}$`, 'u') },
  {
    act: 'thanks',
    languages: ['nl'],
    pattern: new RegExp(`^(?:bedankt|dank je(?: wel)?|dank u(?: wel)?)${TAIL}$`, 'u'),
  },
  {
    act: 'goodbye',
    languages: ['en'],
    pattern: /^(?:bye|goodbye|bye bye|see you(?: later| soon)?|have a (?:nice|good) day)$/u,
  },
  { act: 'goodbye', languages: ['fr'], pattern: /^(?:au revoir|à bientôt|bonne journée|bonne soirée)$/u },
  { act: 'goodbye', languages: ['de'], pattern: /^(?:tschüss|auf wiedersehen|bis bald|schönen tag noch)$/u },
  { act: 'goodbye', languages: ['es'], pattern: /^(?:adiós|adios|hasta luego|hasta pronto)$/u },
  { act: 'goodbye', languages: ['pt'], pattern: /^(?:tchau|adeus|até logo|até breve)$/u },
  { act: 'goodbye', languages: ['it'], pattern: /^(?:arrivederci|a presto)$/u },
  { act: 'goodbye', languages: ['nl'], pattern: /^(?:tot ziens|doei|dag)$/u },
];

// A request for a person: a verb of talking and someone to talk to, per language.
const HUMAN_REQUESTS: ReadonlyArray<{ pattern: RegExp; language: string }> = [
  {
    language: 'en',
    pattern:
      /\b(?:talk|speak|chat)\s+(?:to|with)\s+(?:a\s+|an\s+|some\s+|the\s+|your\s+)?(?:real\s+|live\s+)?(?:human|person|agent|operator|someone|somebody|representative|rep|staff|support\s+agent|member\s+of\s+(?:staff|the\s+team))\b/i,
  },
  {
    language: 'en',
    pattern: /^\W*(?:(?:a\s+)?(?:real\s+)?(?:human|person|live\s+agent|operator)(?:\s+please)?)\W*$/i,
  },
  {
    language: 'en',
    pattern:
      /\b(?:connect|transfer|put)\s+me\s+(?:to|with|through\s+to)\s+(?:an?\s+)?(?:human|person|agent|operator)/i,
  },
  {
    language: 'fr',
    pattern:
      /\bparler\s+(?:à|a|avec)\s+(?:un(?:e)?\s+)?(?:(?:vrai(?:e)?\s+)?(?:humain|personne|conseill(?:er|ère)|agent|opérat(?:eur|rice)|vendeu(?:r|se))|quelqu['’]un)/i,
  },
  {
    language: 'de',
    pattern:
      /\b(?:mit\s+)?(?:einem|einer|jemandem)\s+(?:echten\s+)?(?:menschen|mitarbeiter(?:in)?|person|berater(?:in)?|kundenberater(?:in)?)?\s*(?:sprechen|reden)\b/i,
  },
  {
    language: 'es',
    pattern: /\bhablar\s+con\s+(?:una?\s+)?(?:persona|humano|agente|asesor|operador|alguien)/i,
  },
  { language: 'pt', pattern: /\bfalar\s+com\s+(?:uma?\s+)?(?:pessoa|humano|atendente|agente|algu[eé]m)/i },
  {
    language: 'it',
    pattern:
      /\bparlare\s+con\s+(?:una?\s+|un['’]\s*)?(?:persona|umano|operatore|operatrice|agente|qualcuno)/i,
  },
  {
    language: 'nl',
    pattern:
      /\b(?:spreken|praten)\s+met\s+(?:een\s+)?(?:mens|persoon|medewerker)|\bmet\s+een\s+(?:mens|medewerker|persoon)\s+(?:spreken|praten)/i,
  },
];

/** A message as small talk is compared: lower case, no punctuation or emoji, spaces collapsed. */
function bare(message: string): string {
  return message
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\s']+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Reads what a visitor message is: small talk, a request for a person, or null (a question for
 * retrieval). `language` is the phrase's own language when it has one, for the reply.
 */
export function readVisitorIntent(message: string, visitorLanguage: string): VisitorIntent | null {
  const text = message.slice(0, 300);
  for (const { pattern, language } of HUMAN_REQUESTS) {
    if (pattern.test(text)) return { kind: 'human', language };
  }
  // A question is never small talk ("thanks, and how much is shipping?").
  if (text.includes('?') || text.length > 80) return null;
  const words = bare(text);
  const own = visitorLanguage.toLowerCase().split('-')[0] ?? '';
  for (const phrase of SMALL_TALK) {
    if (!phrase.pattern.test(words)) continue;
    const language = phrase.languages.includes(own) ? own : (phrase.languages[0] ?? null);
    return { kind: 'smalltalk', act: phrase.act, language };
  }
  return null;
}
