/**
 * A deterministic synthetic corpus for the retrieval benchmarks: a vocabulary of a few thousand
 * words drawn with a Zipf distribution (function words at the top, as in real text), plus topic
 * words that make chunks about something, so queries have real (and ranked) matches. The same
 * seed gives the same texts and queries on every run and machine.
 */

/** A seeded PRNG (mulberry32): `next()` is uniform in [0, 1). */
export type Random = { next(): number; int(below: number): number; pick<T>(items: readonly T[]): T };

/** mulberry32: tiny, fast and good enough for test data (not for anything secret). */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number) => Math.floor(next() * below);
  return {
    next,
    int,
    pick<T>(items: readonly T[]): T {
      const item = items[int(items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
  };
}

/** The most frequent words of English text; they open the Zipf ranking. */
const FUNCTION_WORDS = (
  'the of and to a in is it you that he was for on are with as his they be at one have this from ' +
  'or had by not but what all were we when your can said there use an each which she do how their ' +
  'if will up other about out many then them these so some her would make like him into time has'
).split(' ');

/** Topic words: each topic is a handful of words that chunks about it repeat. */
const TOPICS: readonly (readonly string[])[] = [
  'refund return receipt exchange voucher credit reimbursement policy',
  'shipping delivery courier parcel tracking dispatch postage express',
  'warranty guarantee repair defect replacement claim coverage service',
  'payment invoice checkout card paypal instalment billing transaction',
  'account password login profile settings email verification security',
  'cotton wool fabric linen polyester material weave texture',
  'size measurement fitting length width chart inseam sleeve',
  'washing laundry detergent ironing drying bleach stain temperature',
  'subscription membership renewal cancellation plan upgrade trial tier',
  'warehouse stock inventory availability backorder restock supplier pallet',
  'battery charger voltage adapter cable power socket plug',
  'bicycle saddle pedal chain gear brake wheel frame',
  'kitchen blender kettle toaster oven microwave cookware utensil',
  'garden lawn mower hedge trimmer compost seeds watering',
  'camera lens tripod shutter aperture sensor exposure flash',
  'headphones speaker bluetooth microphone amplifier volume bass noise',
  'furniture sofa mattress wardrobe drawer cushion assembly hinge',
  'privacy cookies consent tracking analytics gdpr deletion request',
  'coupon discount promotion sale clearance bundle loyalty points',
  'opening hours holiday closure appointment branch location parking',
  'allergen ingredient gluten lactose vegan organic nutrition label',
  'tent sleeping backpack hiking camping stove lantern compass',
  'printer cartridge toner paper scanner ink duplex tray',
  'insurance liability damage theft accident premium deductible policyholder',
  'recycling packaging plastic cardboard sustainable carbon emissions reuse',
].map((line) => line.split(' '));

/** Every word any topic uses. */
export const TOPIC_WORDS: readonly string[] = TOPICS.flat();

const CONSONANTS = 'bdfgklmnprstv';
const VOWELS = 'aeiou';

/** A pronounceable pseudo-word of 2–4 syllables. */
function pseudoWord(random: Random): string {
  const syllables = 2 + random.int(3);
  let word = '';
  for (let i = 0; i < syllables; i += 1) {
    word += random.pick([...CONSONANTS]) + random.pick([...VOWELS]);
    if (random.next() < 0.3) word += random.pick([...CONSONANTS]);
  }
  return word;
}

/** How many distinct words the vocabulary holds (function words included). */
export const VOCABULARY_SIZE = 4000;
/** Zipf exponent: word frequency ∝ 1 / rank^s (≈ 1 for natural language). */
const ZIPF_EXPONENT = 1.05;
/** Share of a text's words that come from its topic. */
const TOPIC_SHARE = 0.08;

/** The vocabulary in rank order: function words, then pseudo-words (no topic word among them). */
export const VOCABULARY: readonly string[] = (() => {
  const random = createRandom(20_260_101);
  const words = new Set(FUNCTION_WORDS);
  const topic = new Set(TOPIC_WORDS);
  while (words.size < VOCABULARY_SIZE) {
    const word = pseudoWord(random);
    if (!topic.has(word)) words.add(word);
  }
  return [...words];
})();

/** Cumulative Zipf weights over VOCABULARY, for sampling by binary search. */
const CUMULATIVE: Float64Array = (() => {
  const cumulative = new Float64Array(VOCABULARY.length);
  let sum = 0;
  for (let rank = 0; rank < VOCABULARY.length; rank += 1) {
    sum += 1 / (rank + 1) ** ZIPF_EXPONENT;
    cumulative[rank] = sum;
  }
  return cumulative.map((value) => value / sum);
})();

/** One vocabulary word, Zipf-distributed. */
export function zipfWord(random: Random): string {
  const target = random.next();
  let low = 0;
  let high = CUMULATIVE.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((CUMULATIVE[middle] ?? 1) < target) low = middle + 1;
    else high = middle;
  }
  return VOCABULARY[low] ?? 'the';
}

/** The number of topics; texts pick one. */
export const TOPIC_COUNT = TOPICS.length;

function topicWords(topic: number): readonly string[] {
  return TOPICS[topic % TOPICS.length] ?? TOPICS[0] ?? [];
}

/** `count` words of running text about `topic`, in sentences of 6–20 words. */
export function prose(random: Random, topic: number, count: number): string {
  const own = topicWords(topic);
  const sentences: string[] = [];
  let left = count;
  while (left > 0) {
    const length = Math.min(left, 6 + random.int(15));
    const words: string[] = [];
    for (let i = 0; i < length; i += 1) {
      words.push(random.next() < TOPIC_SHARE ? random.pick(own) : zipfWord(random));
    }
    const text = words.join(' ');
    sentences.push(`${text.charAt(0).toUpperCase()}${text.slice(1)}.`);
    left -= length;
  }
  return sentences.join(' ');
}

/** A chunk-sized text: 80–200 words about one topic. */
export function chunkSizedText(random: Random, topic: number): string {
  return prose(random, topic, 80 + random.int(121));
}

/**
 * A document of `words` words about one topic: a title line, then paragraphs of 40–120 words
 * with an occasional heading, as extracted page text looks.
 */
export function documentText(random: Random, topic: number, words: number): string {
  const own = topicWords(topic);
  const blocks: string[] = [];
  let left = words;
  while (left > 0) {
    if (blocks.length > 0 && random.next() < 0.2) blocks.push(`## ${random.pick(own)} ${zipfWord(random)}`);
    const length = Math.min(left, 40 + random.int(81));
    blocks.push(prose(random, topic, length));
    left -= length;
  }
  return blocks.join('\n\n');
}

/** What kind of query: how users ask, and how retrieval should answer. */
export type QueryKind = '1-2 words' | '3-6 words' | 'typo' | 'no match';

/** The query kinds, in the order reports list them. */
export const QUERY_KINDS: readonly QueryKind[] = ['1-2 words', '3-6 words', 'typo', 'no match'];

/** A benchmark query and its kind. */
export type BenchQuery = { kind: QueryKind; text: string };

const QUESTION_OPENERS = ['how do I', 'can I', 'what is the', 'where is my', 'how long does', 'is there a'];

/** Letters no vocabulary or topic word uses, so these words match nothing. */
const ALIEN = 'qxzjyw';

/** One misspelling: two inner letters swapped or one replaced, as people type. */
function misspell(random: Random, word: string): string {
  if (word.length < 4) return `${word}${random.pick([...VOWELS])}`;
  const at = 1 + random.int(word.length - 2);
  if (random.next() < 0.5) return `${word.slice(0, at)}${word[at + 1]}${word[at]}${word.slice(at + 2)}`;
  const replacement = random.pick([...'aeioulnrst'].filter((letter) => letter !== word[at]));
  return `${word.slice(0, at)}${replacement}${word.slice(at + 1)}`;
}

/** A mid-frequency vocabulary word (rank 50–1500): present in some chunks, not in most. */
function middleWord(random: Random): string {
  return VOCABULARY[50 + random.int(1450)] ?? 'the';
}

/** `count` queries, the four kinds in equal shares, interleaved, from `seed`. */
export function benchQueries(seed: number, count: number): BenchQuery[] {
  const random = createRandom(seed);
  const queries: BenchQuery[] = [];
  for (let i = 0; i < count; i += 1) {
    const kind = QUERY_KINDS[i % QUERY_KINDS.length] ?? '1-2 words';
    const own = topicWords(random.int(TOPIC_COUNT));
    let text: string;
    if (kind === '1-2 words') {
      text = random.next() < 0.6 ? random.pick(own) : `${random.pick(own)} ${random.pick(own)}`;
    } else if (kind === '3-6 words') {
      const words = [random.pick(own), random.pick(own)];
      if (random.next() < 0.5) words.push(middleWord(random));
      // Half of them asked as a question: function words in the query, as users type them.
      text = random.next() < 0.5 ? `${random.pick(QUESTION_OPENERS)} ${words.join(' ')}` : words.join(' ');
    } else if (kind === 'typo') {
      const words = [misspell(random, random.pick(own))];
      if (random.next() < 0.5) words.push(random.pick(own));
      text = words.join(' ');
    } else {
      const words = Array.from({ length: 1 + random.int(3) }, () => {
        let word = '';
        for (let k = 0; k < 5 + random.int(4); k += 1)
          word += random.pick([...ALIEN]) + random.pick([...VOWELS]);
        return word;
      });
      text = words.join(' ');
    }
    queries.push({ kind, text });
  }
  return queries;
}
