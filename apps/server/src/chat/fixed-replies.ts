/** Fixed replies of the engine, in the languages the service knows; English otherwise. */
const NO_ANSWER: Readonly<Record<string, string>> = {
  en: "I don't know the answer to that from what I have been given. Would you like to talk to a human?",
  de: 'Dazu habe ich leider keine Informationen. Möchten Sie mit einem Menschen sprechen?',
  fr: "Je ne connais pas la réponse d'après les informations dont je dispose. Voulez-vous parler à une personne ?",
  es: 'No sé la respuesta con la información que tengo. ¿Quiere hablar con una persona?',
  pt: 'Não sei a resposta com as informações que tenho. Quer falar com uma pessoa?',
  it: 'Non conosco la risposta con le informazioni che ho. Vuoi parlare con una persona?',
  nl: 'Ik weet het antwoord niet op basis van de informatie die ik heb. Wilt u met een mens praten?',
};

const NO_ANSWER_NO_HUMAN: Readonly<Record<string, string>> = {
  en: "I don't know the answer to that from what I have been given.",
  de: 'Dazu habe ich leider keine Informationen.',
  fr: "Je ne connais pas la réponse d'après les informations dont je dispose.",
  es: 'No sé la respuesta con la información que tengo.',
  pt: 'Não sei a resposta com as informações que tenho.',
  it: 'Non conosco la risposta con le informazioni che ho.',
  nl: 'Ik weet het antwoord niet op basis van de informatie die ik heb.',
};

function pick(table: Readonly<Record<string, string>>, language: string): string {
  return table[language] ?? table[language.split('-')[0] ?? ''] ?? table.en ?? '';
}

/** The honest "I don't know" (offering a human when the agent has human takeover on). */
export function noAnswerReply(language: string, canEscalate: boolean): string {
  return pick(canEscalate ? NO_ANSWER : NO_ANSWER_NO_HUMAN, language);
}

/** The `error` frame's message when no answer could be produced. */
export const ANSWER_FAILED_MESSAGE =
  'The assistant could not answer right now. Please try again, or ask for a human.';
