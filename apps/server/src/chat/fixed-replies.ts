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

const MESSAGE_LIMIT: Readonly<Record<string, string>> = {
  en: "Sorry, this assistant can't take more questions this month. Please contact us another way, and thank you for your patience.",
  de: 'Dieser Assistent kann in diesem Monat leider keine weiteren Fragen annehmen. Bitte kontaktieren Sie uns auf anderem Weg – vielen Dank für Ihre Geduld.',
  fr: 'Désolé, cet assistant ne peut plus répondre à de nouvelles questions ce mois-ci. Merci de nous contacter autrement, et merci de votre patience.',
  es: 'Lo sentimos, este asistente no puede atender más preguntas este mes. Contáctenos por otro medio; gracias por su paciencia.',
  pt: 'Desculpe, este assistente não pode receber mais perguntas este mês. Contacte-nos de outra forma; obrigado pela paciência.',
  it: 'Spiacenti, questo assistente non può ricevere altre domande questo mese. Contattaci in un altro modo; grazie per la pazienza.',
  nl: 'Sorry, deze assistent kan deze maand geen vragen meer aannemen. Neem op een andere manier contact met ons op; bedankt voor uw geduld.',
};

/** The polite answer a visitor gets while the workspace is at its plan's monthly message limit. */
export function messageLimitReply(language: string): string {
  return pick(MESSAGE_LIMIT, language);
}

/** The `error` frame's message when no answer could be produced. */
export const ANSWER_FAILED_MESSAGE =
  'The assistant could not answer right now. Please try again, or ask for a human.';
