// The offline composer's fixed phrases, per language (English otherwise). Everything else it
// says is quoted from a source or read from a synced product's fields.

/** The phrases of one language. */
export type ComposerPhrases = {
  /** Before quoted sentences. */
  leadIn: string;
  inStock: string;
  outOfStock: string;
  /** After a sale price: the regular one. */
  regularPrice: (price: string) => string;
  /** The link to a product's page. */
  viewProduct: string;
  greeting: string;
  thanks: string;
  goodbye: string;
  /** A request for a person, sent on to the team (the conversation waits for an operator). */
  handoff: string;
  /** A request for a person where the agent has human takeover off. */
  noHumans: string;
};

const PHRASES: Readonly<Record<string, ComposerPhrases>> = {
  en: {
    leadIn: 'Here is what I found:',
    inStock: 'in stock',
    outOfStock: 'out of stock',
    regularPrice: (price) => `on sale, regular price ${price}`,
    viewProduct: 'View the product',
    greeting: 'Hello! What can I help you with?',
    thanks: "You're welcome! Anything else I can help with?",
    goodbye: 'Goodbye, and thanks for stopping by!',
    handoff:
      "I've asked a member of our team to join this conversation. They will reply here as soon as they can.",
    noHumans:
      "I'm sorry, no one from the team can join this chat. I'm happy to help with questions about the site.",
  },
  fr: {
    leadIn: "Voici ce que j'ai trouvé :",
    inStock: 'en stock',
    outOfStock: 'en rupture de stock',
    regularPrice: (price) => `en promotion, prix normal ${price}`,
    viewProduct: 'Voir le produit',
    greeting: 'Bonjour ! Comment puis-je vous aider ?',
    thanks: 'Avec plaisir ! Puis-je vous aider pour autre chose ?',
    goodbye: 'Au revoir, et merci de votre visite !',
    handoff:
      "J'ai demandé à un membre de notre équipe de rejoindre la conversation. Il vous répondra ici dès que possible.",
    noHumans:
      "Désolé, personne de l'équipe ne peut rejoindre ce chat. Je peux répondre à vos questions sur le site.",
  },
  de: {
    leadIn: 'Das habe ich gefunden:',
    inStock: 'auf Lager',
    outOfStock: 'nicht vorrätig',
    regularPrice: (price) => `im Angebot, regulär ${price}`,
    viewProduct: 'Zum Produkt',
    greeting: 'Hallo! Wie kann ich Ihnen helfen?',
    thanks: 'Gern geschehen! Kann ich sonst noch helfen?',
    goodbye: 'Auf Wiedersehen und danke für Ihren Besuch!',
    handoff:
      'Ich habe ein Mitglied unseres Teams gebeten, dem Gespräch beizutreten. Sie erhalten hier so bald wie möglich eine Antwort.',
    noHumans:
      'Leider kann niemand aus dem Team diesem Chat beitreten. Fragen zur Website beantworte ich gern.',
  },
  es: {
    leadIn: 'Esto es lo que encontré:',
    inStock: 'disponible',
    outOfStock: 'agotado',
    regularPrice: (price) => `en oferta, precio normal ${price}`,
    viewProduct: 'Ver el producto',
    greeting: '¡Hola! ¿En qué puedo ayudarle?',
    thanks: '¡De nada! ¿Puedo ayudarle en algo más?',
    goodbye: '¡Adiós, y gracias por su visita!',
    handoff:
      'He pedido a un miembro de nuestro equipo que se una a la conversación. Le responderá aquí lo antes posible.',
    noHumans:
      'Lo siento, nadie del equipo puede unirse a este chat. Con gusto respondo sus preguntas sobre el sitio.',
  },
  pt: {
    leadIn: 'Isto é o que encontrei:',
    inStock: 'em estoque',
    outOfStock: 'esgotado',
    regularPrice: (price) => `em promoção, preço normal ${price}`,
    viewProduct: 'Ver o produto',
    greeting: 'Olá! Como posso ajudar?',
    thanks: 'De nada! Posso ajudar em mais alguma coisa?',
    goodbye: 'Até logo, e obrigado pela visita!',
    handoff: 'Pedi a um membro da nossa equipa que se junte à conversa. Responderá aqui assim que possível.',
    noHumans:
      'Lamento, ninguém da equipa pode juntar-se a este chat. Posso responder a perguntas sobre o site.',
  },
  it: {
    leadIn: 'Ecco cosa ho trovato:',
    inStock: 'disponibile',
    outOfStock: 'esaurito',
    regularPrice: (price) => `in offerta, prezzo normale ${price}`,
    viewProduct: 'Vedi il prodotto',
    greeting: 'Ciao! Come posso aiutarti?',
    thanks: 'Prego! Posso aiutarti in altro?',
    goodbye: 'Arrivederci, e grazie della visita!',
    handoff:
      'Ho chiesto a un membro del nostro team di unirsi alla conversazione. Ti risponderà qui il prima possibile.',
    noHumans:
      'Mi dispiace, nessuno del team può unirsi a questa chat. Rispondo volentieri alle domande sul sito.',
  },
  nl: {
    leadIn: 'Dit heb ik gevonden:',
    inStock: 'op voorraad',
    outOfStock: 'uitverkocht',
    regularPrice: (price) => `in de aanbieding, normale prijs ${price}`,
    viewProduct: 'Bekijk het product',
    greeting: 'Hallo! Waarmee kan ik u helpen?',
    thanks: 'Graag gedaan! Kan ik nog ergens mee helpen?',
    goodbye: 'Tot ziens, en bedankt voor uw bezoek!',
    handoff:
      'Ik heb een collega gevraagd om aan dit gesprek deel te nemen. U krijgt hier zo snel mogelijk antwoord.',
    noHumans:
      'Sorry, niemand van het team kan aan deze chat deelnemen. Vragen over de site beantwoord ik graag.',
  },
};

/** The languages the composer has phrases for. */
export const COMPOSER_LANGUAGES: readonly string[] = Object.keys(PHRASES);

/** The phrases of `language` (`fr-CA` → `fr`), English when it has none. */
export function composerPhrases(language: string | undefined): ComposerPhrases {
  const tag = (language ?? 'en').toLowerCase();
  const english = PHRASES.en;
  if (!english) throw new Error('English phrases missing');
  return PHRASES[tag] ?? PHRASES[tag.split('-')[0] ?? ''] ?? english;
}
