/**
 * Words that carry little meaning on their own, in the languages most agents speak (English,
 * Spanish, Portuguese, French, German, Dutch, Italian). A query's any-word form leaves them out
 * (matching "the" alone does not make a chunk a hit, and it would make nearly every chunk one),
 * and typo tolerance does not try to correct them.
 */
const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  (
    'a about after all also am an and any are as at be been before being both but by can could ' +
    'did do does doing for from had has have having he her here hers him his how i if in into is ' +
    'it its just me more most my no nor not of off on once only or other our ours out over own ' +
    'same she should so some such than that the their theirs them then there these they this ' +
    'those through to too under until up very was we were what when where which while who whom ' +
    'why will with would you your yours ' +
    'al como con de del el en es este esta ese esa la las lo los mas más mi o para pero por que ' +
    'qué se si sin su sus un una uno y ao as da das do dos em na nas nos os um uma é ' +
    'au aux ce ces dans des du elle est et il ils je le les leur mais ne nous on ou où par pas ' +
    'pour qui sa ses son sur ta te tu une vos votre vous ' +
    'auf aus bei das dem den der des die ein eine einen einer für ich im ist mit nicht oder ' +
    'sie sind und von wie zu zum zur het een van op dat gli di che non'
  ).split(' '),
);

/** Whether a lower-case word is a function word. */
export function isFunctionWord(word: string): boolean {
  return FUNCTION_WORDS.has(word);
}
