#!/usr/bin/env node
// Copied from the shared golden set (see README.md beside it); reformatted for the repository's linter.
// Checks the SQLite-docs retrieval golden set (sqlite-docs.jsonl) against the installed corpus.
// Plain Node 20 ESM, no dependencies.
//
//   node verify.mjs                          # check every line; exit 0 = all good, 1 = failures, 2 = no corpus
//   node verify.mjs --corpus DIR             # HTML root (default $SQLITE_DOCS_DIR or /usr/share/doc/sqlite3)
//   node verify.mjs --golden FILE            # golden set (default sqlite-docs.jsonl beside this script)
//   node verify.mjs --text lang_vacuum.html  # print the normalised visible text of one page
//   node verify.mjs --find "some phrase"     # list the pages whose visible text contains a phrase
//
// Corpus: Debian package sqlite3-doc (apt-get install -y sqlite3-doc); the HTML root is
// /usr/share/doc/sqlite3 (pages also in c3ref/, session/, syntax/, releaselog/).
//
// Per line it checks: valid JSON; id `sq-NNN`, unique; kind one of the five; question, evidence
// non-empty strings (evidence at most 120 characters); expected_url and every also_ok entry an
// existing .html file under the corpus root (relative path, no `..`); evidence occurring in the
// expected page's visible text (tags stripped, entities decoded, whitespace collapsed,
// case-insensitive). Overall: 80 lines, 20 fact / 20 howto / 15 typo / 15 paraphrase /
// 10 multilingual, multilingual lines in 10 different `lang`s, at least 50 distinct expected pages.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const CORPUS = path.resolve(opt('--corpus', process.env.SQLITE_DOCS_DIR || '/usr/share/doc/sqlite3'));
const GOLDEN = path.resolve(opt('--golden', path.join(HERE, 'sqlite-docs.jsonl')));

const EXPECTED_KINDS = { fact: 20, howto: 20, typo: 15, paraphrase: 15, multilingual: 10 };
const EXPECTED_TOTAL = 80;
const MIN_DISTINCT_PAGES = 50;
const MAX_EVIDENCE = 120;

// ---------------------------------------------------------------------------------------------
// Visible text of a page.

const ENTITIES = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
  mdash: '\u2014',
  ndash: '\u2013',
  hellip: '\u2026',
  lsquo: '\u2018',
  rsquo: '\u2019',
  ldquo: '\u201c',
  rdquo: '\u201d',
  laquo: '\u00ab',
  raquo: '\u00bb',
  copy: '\u00a9',
  reg: '\u00ae',
  trade: '\u2122',
  larr: '\u2190',
  rarr: '\u2192',
  uarr: '\u2191',
  darr: '\u2193',
  harr: '\u2194',
  rArr: '\u21d2',
  lArr: '\u21d0',
  le: '\u2264',
  ge: '\u2265',
  ne: '\u2260',
  times: '\u00d7',
  divide: '\u00f7',
  minus: '\u2212',
  plusmn: '\u00b1',
  middot: '\u00b7',
  bull: '\u2022',
  deg: '\u00b0',
  micro: '\u00b5',
  para: '\u00b6',
  sect: '\u00a7',
  frac12: '\u00bd',
  frac14: '\u00bc',
  frac34: '\u00be',
  sup2: '\u00b2',
  sup3: '\u00b3',
  infin: '\u221e',
  pi: '\u03c0',
  alpha: '\u03b1',
  beta: '\u03b2',
  euro: '\u20ac',
  pound: '\u00a3',
  yen: '\u00a5',
  cent: '\u00a2',
  auml: '\u00e4',
  ouml: '\u00f6',
  uuml: '\u00fc',
  Auml: '\u00c4',
  Ouml: '\u00d6',
  Uuml: '\u00dc',
  szlig: '\u00df',
  eacute: '\u00e9',
  egrave: '\u00e8',
  aacute: '\u00e1',
  agrave: '\u00e0',
  oacute: '\u00f3',
  iacute: '\u00ed',
  sup1: '\u00b9',
  uacute: '\u00fa',
  ntilde: '\u00f1',
  ccedil: '\u00e7',
  shy: '',
};

export function decodeEntities(text) {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z][a-z0-9]*);/gi, (whole, body) => {
    if (body[0] === '#') {
      const code =
        body[1] === 'x' || body[1] === 'X'
          ? Number.parseInt(body.slice(2), 16)
          : Number.parseInt(body.slice(1), 10);
      if (!Number.isFinite(code) || code < 0 || code > 0x10ffff) return whole;
      return code === 0xa0 ? ' ' : String.fromCodePoint(code);
    }
    return Object.hasOwn(ENTITIES, body) ? ENTITIES[body] : whole;
  });
}

// Tags that break a line in a browser: replaced by a space. Every other tag just vanishes, so
// `AUTO<b>INCREMENT</b>` stays one word while `</p><p>` does not glue two words together.
const BLOCK = new Set(
  (
    'address article aside blockquote body br button caption center dd details div dl dt fieldset figcaption figure ' +
    'footer form h1 h2 h3 h4 h5 h6 head header hr html img input li main nav ol optgroup option p pre section ' +
    'select summary table tbody td textarea tfoot th thead title tr ul svg text g'
  ).split(' '),
);

/** Normalised visible text: no head/script/style/comments, tags stripped, entities decoded, whitespace collapsed. */
export function visibleText(html) {
  let s = html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<![^>]*>/g, ' ')
    .replace(/<head[\s>][\s\S]*?<\/head>/gi, ' ')
    .replace(/<script[\s>][\s\S]*?<\/script>/gi, ' ')
    .replace(/<style[\s>][\s\S]*?<\/style>/gi, ' ')
    .replace(/<\/?([a-zA-Z][a-zA-Z0-9]*)\b[^>]*>/g, (_m, name) => (BLOCK.has(name.toLowerCase()) ? ' ' : ''));
  s = decodeEntities(s);
  return normalise(s);
}

/** Whitespace collapsed, NFKC (so non-breaking and wide forms compare plainly), trimmed. */
export function normalise(text) {
  return text
    .normalize('NFKC')
    .replace(/[\s\u00a0\u200b]+/g, ' ')
    .trim();
}

const textCache = new Map();
function pageText(rel) {
  if (!textCache.has(rel)) textCache.set(rel, visibleText(fs.readFileSync(path.join(CORPUS, rel), 'utf8')));
  return textCache.get(rel);
}

function allPages(dir = CORPUS, prefix = '') {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...allPages(path.join(dir, entry.name), rel));
    else if (entry.isFile() && entry.name.toLowerCase().endsWith('.html')) out.push(rel);
  }
  return out.sort();
}

/** A corpus-relative .html path that exists (no absolute paths, no `..`, no query or fragment). */
function pageExists(rel) {
  if (typeof rel !== 'string' || rel === '' || rel.startsWith('/') || rel.includes('\\')) return false;
  if (rel.split('/').some((seg) => seg === '..' || seg === '.' || seg === '')) return false;
  if (!rel.endsWith('.html')) return false;
  const full = path.join(CORPUS, rel);
  return full.startsWith(CORPUS + path.sep) && fs.existsSync(full) && fs.statSync(full).isFile();
}

// ---------------------------------------------------------------------------------------------

if (!fs.existsSync(path.join(CORPUS, 'index.html'))) {
  console.error(`corpus not found at ${CORPUS} (apt-get install -y sqlite3-doc, or pass --corpus DIR)`);
  process.exit(2);
}

if (args.includes('--text')) {
  const rel = opt('--text');
  if (!pageExists(rel)) {
    console.error(`no such page: ${rel}`);
    process.exit(1);
  }
  console.log(pageText(rel));
  process.exit(0);
}

if (args.includes('--find')) {
  const needle = normalise(String(opt('--find', ''))).toLowerCase();
  for (const rel of allPages()) {
    const text = pageText(rel).toLowerCase();
    let n = 0;
    for (let i = text.indexOf(needle); needle && i !== -1; i = text.indexOf(needle, i + 1)) n++;
    if (n > 0) console.log(`${rel}\t${n}`);
  }
  process.exit(0);
}

const failures = [];
const fail = (where, msg) => failures.push(`${where}: ${msg}`);
const notes = [];

const pages = allPages();
const raw = fs.readFileSync(GOLDEN, 'utf8').replace(/^\uFEFF/, '');
const lines = raw.split('\n');
if (lines.at(-1) === '') lines.pop();

const items = [];
for (const [index, line] of lines.entries()) {
  const where = `line ${index + 1}`;
  if (line.trim() === '') {
    fail(where, 'blank line');
    continue;
  }
  let item;
  try {
    item = JSON.parse(line);
  } catch (error) {
    fail(where, `not valid JSON (${error.message})`);
    continue;
  }
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    fail(where, 'not a JSON object');
    continue;
  }
  items.push({ where: `${where} (${item.id ?? 'no id'})`, item });
}

const ids = new Map();
const kindCounts = Object.fromEntries(Object.keys(EXPECTED_KINDS).map((k) => [k, 0]));
const expectedPages = new Set();
const langs = new Map();
let evidenceOk = 0;
let alsoOkCount = 0;
let evidenceElsewhere = 0;

for (const { where, item } of items) {
  const { id, kind, question, expected_url: expected, also_ok: alsoOk, evidence } = item;
  if (typeof id !== 'string' || !/^sq-\d{3}$/.test(id))
    fail(where, `id must look like sq-001 (got ${JSON.stringify(id)})`);
  else if (ids.has(id)) fail(where, `duplicate id, first on ${ids.get(id)}`);
  else ids.set(id, where);

  if (!Object.hasOwn(EXPECTED_KINDS, kind)) fail(where, `unknown kind ${JSON.stringify(kind)}`);
  else kindCounts[kind]++;

  if (typeof question !== 'string' || question.trim() === '')
    fail(where, 'question must be a non-empty string');

  if (kind === 'multilingual') {
    if (typeof item.lang !== 'string' || item.lang === '') fail(where, 'multilingual line needs a lang');
    else langs.set(item.lang, (langs.get(item.lang) ?? 0) + 1);
  }

  let expectedOk = false;
  if (!pageExists(expected))
    fail(where, `expected_url ${JSON.stringify(expected)} is not a page under ${CORPUS}`);
  else {
    expectedOk = true;
    expectedPages.add(expected);
  }

  if (!Array.isArray(alsoOk)) fail(where, 'also_ok must be an array (may be empty)');
  else {
    const seen = new Set();
    for (const other of alsoOk) {
      if (!pageExists(other)) fail(where, `also_ok ${JSON.stringify(other)} is not a page under ${CORPUS}`);
      else if (other === expected) fail(where, `also_ok repeats expected_url ${other}`);
      else if (seen.has(other)) fail(where, `also_ok lists ${other} twice`);
      else alsoOkCount++;
      seen.add(other);
    }
  }

  if (typeof evidence !== 'string' || evidence.trim() === '')
    fail(where, 'evidence must be a non-empty string');
  else if (evidence.length > MAX_EVIDENCE)
    fail(where, `evidence is ${evidence.length} characters (at most ${MAX_EVIDENCE})`);
  else if (expectedOk) {
    const needle = normalise(evidence).toLowerCase();
    if (!pageText(expected).toLowerCase().includes(needle))
      fail(where, `evidence not found in ${expected}: ${JSON.stringify(evidence)}`);
    else {
      evidenceOk++;
      // Informational: does the snippet also occur on pages that are not listed?
      const listed = new Set([expected, ...(Array.isArray(alsoOk) ? alsoOk : [])]);
      const elsewhere = pages.filter((p) => !listed.has(p) && pageText(p).toLowerCase().includes(needle));
      if (elsewhere.length > 0) {
        evidenceElsewhere++;
        notes.push(
          `${where}: evidence also occurs on ${elsewhere.length} unlisted page(s): ${elsewhere.slice(0, 4).join(', ')}${elsewhere.length > 4 ? ', …' : ''}`,
        );
      }
    }
  }
}

if (items.length !== EXPECTED_TOTAL) fail('set', `${items.length} questions, expected ${EXPECTED_TOTAL}`);
for (const [kind, n] of Object.entries(EXPECTED_KINDS)) {
  if (kindCounts[kind] !== n) fail('set', `${kindCounts[kind]} ${kind} questions, expected ${n}`);
}
if (kindCounts.multilingual > 0 && langs.size !== kindCounts.multilingual) {
  fail(
    'set',
    `multilingual questions use ${langs.size} languages for ${kindCounts.multilingual} lines (one each expected)`,
  );
}
if (expectedPages.size < MIN_DISTINCT_PAGES)
  fail('set', `${expectedPages.size} distinct expected pages, expected at least ${MIN_DISTINCT_PAGES}`);

console.log(`corpus:      ${CORPUS} (${pages.length} .html pages)`);
console.log(`golden:      ${GOLDEN}`);
console.log(`questions:   ${items.length} (ids unique: ${ids.size === items.length ? 'yes' : 'no'})`);
console.log(
  `kinds:       ${Object.entries(kindCounts)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')}`,
);
console.log(`languages:   ${[...langs.keys()].sort().join(', ') || '-'}`);
console.log(`pages:       ${expectedPages.size} distinct expected pages; ${alsoOkCount} also_ok entries`);
console.log(
  `evidence:    ${evidenceOk}/${items.length} snippets found on their expected page; ${evidenceElsewhere} also occur on unlisted pages (info only)`,
);
if (args.includes('--verbose')) for (const note of notes) console.log(`  note ${note}`);
if (failures.length > 0) {
  console.log(`FAILED: ${failures.length} problem(s)`);
  for (const f of failures) console.log(`  - ${f}`);
  process.exit(1);
}
console.log('OK: all checks passed');
