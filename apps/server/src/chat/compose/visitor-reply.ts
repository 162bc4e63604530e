import { composerPhrases } from './phrases.js';
import type { VisitorIntent } from './visitor-intent.js';

/** A reply decided before retrieval, as the answer engine streams it. */
export type FixedReply = { text: string; answered: boolean };

/**
 * The reply to a message that is not a question for retrieval. A request for a person is
 * passed on with `requestHuman` (the same change as the widget's button: the conversation
 * waits for an operator) when the agent has human takeover on, with or without a model; small
 * talk gets a short fixed reply offline only (a model answers it itself). Null: answer as usual.
 */
export async function fixedVisitorReply(options: {
  intent: VisitorIntent | null;
  language: string;
  offline: boolean;
  humanAvailable: boolean;
  requestHuman: () => Promise<unknown>;
}): Promise<FixedReply | null> {
  const { intent } = options;
  if (intent === null) return null;
  const words = composerPhrases(intent.language ?? options.language);
  if (intent.kind === 'human') {
    if (!options.humanAvailable) return { text: words.noHumans, answered: false };
    await options.requestHuman();
    return { text: words.handoff, answered: true };
  }
  if (!options.offline) return null;
  return { text: words[intent.act], answered: true };
}
