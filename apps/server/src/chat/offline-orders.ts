import type { TOrder } from '@service/contract';
import type { WidgetCaller } from '../services/widget/widget-caller.js';
import { lookupOrders } from '../site-calls/plugin-client.js';
import type { ChatDeps } from './chat-deps.js';
import { readOrderQuestion } from './order-intent.js';

/** Orders the offline reply lists at most. */
const OFFLINE_ORDER_LIMIT = 3;

type Phrases = {
  signIn: string;
  unreachable: string;
  inactive: string;
  none: string;
  noneNumbered: (number: string) => string;
  intro: string;
  order: string;
  total: string;
  track: string;
  view: string;
};

const PHRASES: Readonly<Record<string, Phrases>> = {
  en: {
    signIn:
      'I can look up orders only for signed-in customers. Please sign in to your account on this site and ask me again.',
    unreachable: 'I could not reach the shop to look up your orders just now. Please try again in a moment.',
    inactive: 'Order lookup is not available on this site.',
    none: 'I could not find any orders on your account.',
    noneNumbered: (number) => `I could not find an order numbered ${number} on your account.`,
    intro: 'Here is what I found on your account:',
    order: 'Order',
    total: 'total',
    track: 'Track the parcel',
    view: 'View the order',
  },
  fr: {
    signIn:
      'Je ne peux consulter les commandes que des clients connectés. Connectez-vous à votre compte sur ce site, puis reposez la question.',
    unreachable:
      "Je n'ai pas pu joindre la boutique pour consulter vos commandes. Réessayez dans un instant.",
    inactive: "La consultation des commandes n'est pas disponible sur ce site.",
    none: "Je n'ai trouvé aucune commande sur votre compte.",
    noneNumbered: (number) => `Je n'ai pas trouvé de commande numéro ${number} sur votre compte.`,
    intro: "Voici ce que j'ai trouvé sur votre compte :",
    order: 'Commande',
    total: 'total',
    track: 'Suivre le colis',
    view: 'Voir la commande',
  },
  de: {
    signIn:
      'Bestellungen kann ich nur für angemeldete Kunden nachschlagen. Bitte melden Sie sich auf dieser Website an und fragen Sie erneut.',
    unreachable: 'Ich konnte den Shop gerade nicht erreichen. Bitte versuchen Sie es gleich noch einmal.',
    inactive: 'Die Bestellabfrage ist auf dieser Website nicht verfügbar.',
    none: 'Ich habe keine Bestellungen in Ihrem Konto gefunden.',
    noneNumbered: (number) => `Ich habe keine Bestellung mit der Nummer ${number} in Ihrem Konto gefunden.`,
    intro: 'Das habe ich in Ihrem Konto gefunden:',
    order: 'Bestellung',
    total: 'Summe',
    track: 'Sendung verfolgen',
    view: 'Bestellung ansehen',
  },
  es: {
    signIn:
      'Solo puedo consultar pedidos de clientes que han iniciado sesión. Inicie sesión en su cuenta de este sitio y vuelva a preguntar.',
    unreachable:
      'No he podido contactar con la tienda para consultar sus pedidos. Inténtelo de nuevo en un momento.',
    inactive: 'La consulta de pedidos no está disponible en este sitio.',
    none: 'No he encontrado pedidos en su cuenta.',
    noneNumbered: (number) => `No he encontrado el pedido número ${number} en su cuenta.`,
    intro: 'Esto es lo que he encontrado en su cuenta:',
    order: 'Pedido',
    total: 'total',
    track: 'Seguir el paquete',
    view: 'Ver el pedido',
  },
};

function phrasesFor(language: string): Phrases {
  const fallback = PHRASES.en;
  if (!fallback) throw new Error('English phrases missing');
  return PHRASES[language] ?? PHRASES[language.split('-')[0] ?? ''] ?? fallback;
}

/** An offline order reply: its text, and whether it answered (listed orders) or left the visitor stuck. */
export type OfflineOrderReply = { text: string; answered: boolean };

/**
 * The offline responder's answer to an order question: a verified shopper's own orders (looked
 * up on the site with the `wp_user_id` of their verified shopper token, never one from the
 * message), a request to sign in for anyone else, or an honest note when the shop cannot be
 * asked. Null when the question is not about an order, so retrieval answers it.
 */
export async function offlineOrderReply(options: {
  deps: Pick<ChatDeps, 'db' | 'config'>;
  caller: WidgetCaller;
  question: string;
  language: string;
  onFailure: (reason: string) => void;
}): Promise<OfflineOrderReply | null> {
  const asked = readOrderQuestion(options.question);
  if (asked === null) return null;
  const words = phrasesFor(options.language);
  const { conversation } = options.caller;
  if (conversation.shopper_verified_at === null || conversation.shopper_wp_user_id === null) {
    return stuck(words.signIn);
  }
  const result = await lookupOrders({
    db: options.deps.db,
    workspaceId: options.caller.workspaceId,
    agentId: options.caller.agent.id,
    wpUserId: Number(conversation.shopper_wp_user_id),
    limit: OFFLINE_ORDER_LIMIT,
    ...(asked.orderNumber === null ? {} : { orderNumber: asked.orderNumber }),
    safeUrlAllow: options.deps.config.safeUrlAllow,
  });
  if (!result.ok) {
    options.onFailure(`${result.kind}: ${result.message}`);
    return stuck(words.unreachable);
  }
  if (result.data.note === 'commerce_inactive') return stuck(words.inactive);
  const orders = result.data.orders.slice(0, OFFLINE_ORDER_LIMIT);
  if (orders.length === 0) {
    return stuck(asked.orderNumber === null ? words.none : words.noneNumbered(asked.orderNumber));
  }
  return {
    text: [words.intro, '', ...orders.map((order) => orderLine(order, words))].join('\n'),
    answered: true,
  };
}

/** A reply that leaves the visitor without their order: the engine offers a human after it. */
function stuck(text: string): OfflineOrderReply {
  return { text, answered: false };
}

/** One order as a markdown list item: number, date, status, items, total and its links. */
function orderLine(order: TOrder, words: Phrases): string {
  const items = order.items.map((item) => `${item.qty} × ${plain(item.name)}`).join(', ');
  const links = [
    order.tracking_url ? `[${words.track}](${linkTarget(order.tracking_url)})` : '',
    `[${words.view}](${linkTarget(order.order_url)})`,
  ].filter((link) => link !== '');
  return (
    `- **${words.order} ${plain(order.number)}** (${order.date_created.slice(0, 10)}): ${plain(order.status)}` +
    `${items ? ` — ${items}` : ''}; ${words.total} ${order.total} ${plain(order.currency)}. ${links.join(' · ')}`
  );
}

/** Site text placed into markdown: markup characters that would change the rendering are dropped. */
function plain(text: string): string {
  return text
    .replace(/[*_`[\]()<>#\\|\n\r]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 120);
}

/** A URL as a markdown link target: the characters that would end the target are escaped. */
function linkTarget(url: string): string {
  return url.replace(
    /[()\s<>]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}
