// The demo blog, generated from lists: brewing guides, origin stories, recipes and shop news,
// interleaved so that any prefix is varied. Titles are distinct; the HTML is authored here and
// rendered as-is on the blog (it is the shop's own trusted content).
import { METHOD_TABLE, NEWS_TABLE, PAGE_TABLE, parseTable, RECIPE_TABLE } from './catalog-data.js';
import { catalogOrigins, slugify } from './catalog-products.js';

/** A generated post or page, as the seed stores it. */
export type CatalogPost = {
  slug: string;
  postType: 'post' | 'page';
  title: string;
  contentHtml: string;
  excerpt: string;
  terms: string[];
};

type Method = { name: string; ratio: string; grind: string; water: string; time: string; tip: string };

const p = (text: string) => `<p>${text}</p>`;
const h2 = (text: string) => `<h2>${text}</h2>`;
const list = (tag: 'ul' | 'ol', items: string[]) =>
  `<${tag}>${items.map((item) => `<li>${item}</li>`).join('')}</${tag}>`;
const cap = (value: string) => value.charAt(0).toUpperCase() + value.slice(1);
const withArticle = (value: string) => `${/^[aeiou]/i.test(value) ? 'an' : 'a'} ${value}`;

function post(
  postType: CatalogPost['postType'],
  title: string,
  terms: string[],
  blocks: string[],
): CatalogPost {
  const excerpt = (blocks[0] ?? '').replace(/<[^>]+>/g, '').slice(0, 200);
  return { slug: slugify(title), postType, title, contentHtml: blocks.join('\n'), excerpt, terms };
}

function pages(): CatalogPost[] {
  return parseTable(PAGE_TABLE, 3).map(([title = '', terms = '', text = '']) =>
    post(
      'page',
      title,
      terms.split(',').map((term) => term.trim()),
      text.split(' / ').map(p),
    ),
  );
}

const METHODS: Method[] = parseTable(METHOD_TABLE, 6).map(
  ([name = '', ratio = '', grind = '', water = '', time = '', tip = '']) => ({
    name,
    ratio,
    grind,
    water,
    time,
    tip,
  }),
);

function howTo(m: Method): CatalogPost {
  return post(
    'post',
    `How to brew with ${withArticle(m.name)}`,
    ['Brewing guides', m.name],
    [
      p(
        `The ${m.name} is one of our favourite ways to make coffee at home. Here is the recipe we use at the roastery, and what to change when the cup is not right.`,
      ),
      h2('What you need'),
      list('ul', [`Coffee: ${m.ratio}`, `Grind: ${m.grind}`, `Water: ${m.water}`, 'A scale and a timer']),
      h2('Steps'),
      list('ol', [
        'Weigh and grind the coffee just before brewing.',
        'Heat the water and rinse or warm the brewer.',
        `Brew for ${m.time}.`,
        'Serve, and taste it as it cools: the best notes come later.',
      ]),
      p(`Our tip: ${m.tip}`),
    ],
  );
}

function troubleshooting(m: Method): CatalogPost {
  return post(
    'post',
    `${cap(m.name)} troubleshooting: sour, bitter or weak?`,
    ['Brewing guides', m.name],
    [
      p(
        `${cap(withArticle(m.name))} that tastes sour is under-extracted: grind finer or brew a little longer. A cup that tastes bitter and dry is over-extracted: grind coarser or cool the water.`,
      ),
      p(
        `If the coffee tastes weak but neither sour nor bitter, use more coffee: start again from ${m.ratio}.`,
      ),
      p(
        'Stale beans also taste flat whatever you do. Use coffee within six weeks of its roast date, and grind it just before brewing.',
      ),
    ],
  );
}

function pairing(m: Method, index: number): CatalogPost {
  const origins = catalogOrigins();
  const origin = origins[(index + 3) % origins.length] ?? origins[0];
  const name = origin?.name ?? 'House Blend';
  const [a, b, c] = origin?.notes ?? ['chocolate', 'hazelnut', 'caramel'];
  return post(
    'post',
    `${name} on the ${m.name}`,
    ['Brewing guides', m.name, origin?.country ?? 'Blends'],
    [
      p(
        `This week we brewed ${name} on the ${m.name}, and it was a good match: ${a} and ${b}, with ${c} at the end.`,
      ),
      p(
        `We started from our usual recipe (${m.ratio}, ground ${m.grind}) and went a little finer to bring out the sweetness.`,
      ),
      p(`${m.tip} Then let the cup cool for two minutes before the first sip.`),
    ],
  );
}

function guidePosts(): CatalogPost[] {
  return [...METHODS.map(howTo), ...METHODS.map(troubleshooting), ...METHODS.map(pairing)];
}

function originPosts(): CatalogPost[] {
  return catalogOrigins().flatMap((origin) => [
    post(
      'post',
      `Origin story: ${origin.name}`,
      ['Origin stories', origin.country],
      [
        p(origin.story),
        p(
          `The coffee grows at ${origin.altitude} in ${origin.region}, ${origin.country}. Process: ${origin.process.toLowerCase()}.`,
        ),
        p(
          `In the cup we find ${origin.notes.join(', ')}. ` +
            (origin.kind === 'Blends'
              ? 'We adjust the recipe of the blend with every new harvest so that it tastes the same all year.'
              : 'We buy it again every year as long as the quality holds.'),
        ),
      ],
    ),
    post(
      'post',
      `Harvest report: ${origin.name}`,
      ['Origin stories', 'Harvest', origin.country],
      [
        p(
          `The new crop of ${origin.name} has landed at the roastery. We cupped twelve samples before choosing this lot.`,
        ),
        p(
          `This year the cup is brighter than last year: more ${origin.notes[0]}, a little less ${origin.notes[2]}. Our roast profile is a touch shorter to keep it.`,
        ),
        p('Bags from the new harvest carry the new lot number on the label.'),
      ],
    ),
  ]);
}

function recipePosts(): CatalogPost[] {
  return parseTable(RECIPE_TABLE, 3).map(([name = '', coffee = '', rest = '']) =>
    post(
      'post',
      `Recipe: ${name}`,
      ['Recipes'],
      [
        p(`${name} is on the menu at the roastery bar, and it is easy to make at home.`),
        h2('Ingredients'),
        list('ul', [cap(coffee), cap(rest)]),
        h2('Method'),
        list('ol', [
          'Prepare the coffee first and taste it on its own.',
          `Combine it with ${rest}.`,
          'Serve at once.',
        ]),
        p('We like it with our House Blend or the Espresso Lyonnais; a decaf works too in the evening.'),
      ],
    ),
  );
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** The one-off news, then monthly roastery notes: as many as needed to reach `count`. */
function newsPosts(count: number): CatalogPost[] {
  const out = parseTable(NEWS_TABLE, 2).map(([title = '', text = '']) =>
    post(
      'post',
      title,
      ['Shop news'],
      [
        p(text),
        p('Questions? Ask us in the chat, or at the roastery shop in Lyon, open Tuesday to Saturday.'),
        p('News appears here first; the roastery newsletter follows once a month.'),
      ],
    ),
  );
  const origins = catalogOrigins();
  for (let n = 0; out.length < count; n++) {
    const month = `${MONTHS[n % 12]} ${2023 + Math.floor(n / 12)}`;
    const origin = origins[n % origins.length];
    out.push(
      post(
        'post',
        `Roastery notes: ${month}`,
        ['Shop news', 'Roastery notes'],
        [
          p(`What happened at the roastery in ${month}.`),
          p(
            `Our coffee of the month was ${origin?.name ?? 'the House Blend'}: ${origin?.notes.join(', ') ?? 'chocolate and hazelnut'}.`,
          ),
          p('As always we roasted on Mondays and Thursdays, and held a tasting every Saturday at 11:00.'),
        ],
      ),
    );
  }
  return out;
}

/** The first `count` posts and pages of the blog: the pages, then the four kinds in turn. */
export function catalogPosts(count: number): CatalogPost[] {
  const kinds = [guidePosts(), originPosts(), recipePosts(), newsPosts(count)];
  const out = pages().slice(0, count);
  for (let round = 0; out.length < count; round++) {
    for (const kind of kinds) {
      const item = kind[round];
      if (item && out.length < count) out.push(item);
    }
  }
  return out;
}
