import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { indexAll, KB_ARTICLES, kbClient, kbDocuments, kbSource, waitingJobs } from './support/kb.js';
import { chunksOf, createAgent, sourcesOf } from './support/site-sync.js';
import { createTestApp, seedTenant, type TestApp } from './support/test-app.js';

const PUBLIC_BASE_URL = 'https://help.example.com';

describe('knowledge base: published articles are indexed for the workspace agents', () => {
  let t: TestApp;

  const { create, patch, search } = kbClient(() => t);

  before(async () => {
    t = await createTestApp({ env: { PUBLIC_BASE_URL: `${PUBLIC_BASE_URL}/` } });
  });
  after(() => t.close());

  test('publishing indexes the article for every agent; search finds it with its public URL', async () => {
    const acme = await seedTenant(t, 'Acme Help');
    const english = await createAgent(t, acme, { name: 'English bot', language_default: 'en' });
    const plain = await createAgent(t, acme, { name: 'Plain bot' });
    assert.equal(await kbSource(t, acme, english), undefined, 'no articles: no empty kb source');

    const article = await create(acme, {
      title: 'Returning a parcel',
      slug: 'returns',
      body_markdown: 'Send the **turquoise flamingo** label with the parcel within thirty days.',
      is_published: true,
    });
    const url = `${PUBLIC_BASE_URL}/kb/${acme.workspace.slug}/returns`;
    for (const [agentId, language] of [
      [english, 'en'],
      [plain, null],
    ] as const) {
      const source = await kbSource(t, acme, agentId);
      assert.ok(source, 'the agent has a kb source');
      assert.equal(source.name, 'Knowledge base');
      assert.equal(source.status, 'indexing');
      assert.equal(source.document_count, 1);
      const [doc, ...rest] = await kbDocuments(t, agentId);
      assert.ok(doc);
      assert.equal(rest.length, 0);
      assert.equal(doc.source_id, source.id);
      assert.equal(doc.external_id, article.id);
      assert.equal(doc.title, 'Returning a parcel');
      assert.equal(doc.url, url);
      assert.equal(doc.language, language);
      assert.equal(doc.index_status, 'pending');
      assert.equal(doc.workspace_id, acme.workspace.id);
      assert.equal(
        doc.content_text,
        'Returning a parcel\n\nSend the turquoise flamingo label with the parcel within thirty days.',
      );
      assert.equal(await waitingJobs(t, doc.id), 1, 'one index job per document');
      assert.deepEqual(
        await search(acme, agentId, 'turquoise flamingo'),
        [],
        'not searchable before indexing',
      );

      await indexAll(t, agentId);
      assert.equal((await kbSource(t, acme, agentId))?.status, 'indexed');
      assert.ok((await chunksOf(t, doc.id)).length > 0);
      const hits = await search(acme, agentId, '"turquoise flamingo"');
      assert.equal(hits.length, 1);
      assert.equal(hits[0]?.document_id, doc.id);
      assert.equal(hits[0]?.url, url);
      assert.equal(hits[0]?.title, 'Returning a parcel');
      assert.match(hits[0]?.content ?? '', /turquoise flamingo label/);
    }
  });

  test('an agent created later gets the published articles, not the drafts', async () => {
    const acme = await seedTenant(t, 'Later Help');
    const published = await create(acme, {
      title: 'Opening hours',
      body_markdown: 'We open at nine when the **saffron lighthouse** shines.',
      is_published: true,
    });
    await create(acme, { title: 'Secret plans', body_markdown: 'The obsidian walrus launches soon.' });

    const agentId = await createAgent(t, acme);
    const source = await kbSource(t, acme, agentId);
    assert.ok(source);
    assert.equal(source.status, 'indexing');
    const docs = await kbDocuments(t, agentId);
    assert.deepEqual(
      docs.map((doc) => doc.external_id),
      [published.id],
    );
    assert.equal(await waitingJobs(t, docs[0]?.id ?? ''), 1);
    await indexAll(t, agentId);
    assert.equal((await kbSource(t, acme, agentId))?.status, 'indexed');
    assert.equal((await search(acme, agentId, 'saffron lighthouse')).length, 1);
    assert.deepEqual(await search(acme, agentId, 'obsidian walrus'), []);
  });

  test('a draft is never indexed and makes no kb source; publishing it indexes it', async () => {
    const acme = await seedTenant(t, 'Draft Help');
    const agentId = await createAgent(t, acme);
    const draft = await create(acme, { title: 'Draft', body_markdown: 'A velvet cactus draft.' });
    await patch(acme, draft.id, { body_markdown: 'A velvet cactus draft, edited.' });
    assert.equal(await kbSource(t, acme, agentId), undefined);
    assert.equal((await sourcesOf(t, agentId)).length, 0);
    assert.deepEqual(await search(acme, agentId, 'velvet cactus'), []);

    await patch(acme, draft.id, { is_published: true });
    const [doc] = await kbDocuments(t, agentId);
    assert.equal(doc?.external_id, draft.id);
    await indexAll(t, agentId);
    assert.equal((await search(acme, agentId, 'velvet cactus')).length, 1);
  });

  test('editing the body or slug re-indexes; an edit that changes nothing indexed queues no job', async () => {
    const acme = await seedTenant(t, 'Edit Help');
    const agentId = await createAgent(t, acme);
    const article = await create(acme, {
      title: 'Warranty',
      slug: 'warranty',
      body_markdown: 'Two years of **amber pelican** cover.',
      is_published: true,
    });
    await indexAll(t, agentId);
    const [indexed] = await kbDocuments(t, agentId);
    assert.ok(indexed);
    assert.equal(indexed.index_status, 'indexed');
    assert.equal(await waitingJobs(t, indexed.id), 0);

    // Same title, publish state unchanged, an identical body: nothing indexed changes.
    await patch(acme, article.id, {
      title: 'Warranty',
      is_published: true,
      body_markdown: article.body_markdown,
    });
    const [same] = await kbDocuments(t, agentId);
    assert.deepEqual(same, indexed, 'the document is untouched');
    assert.equal(await waitingJobs(t, indexed.id), 0, 'no job for an unchanged article');

    await patch(acme, article.id, { body_markdown: 'Three years of **crimson heron** cover.' });
    const [edited] = await kbDocuments(t, agentId);
    assert.ok(edited);
    assert.equal(edited.id, indexed.id, 'upserted in place');
    assert.notEqual(edited.content_hash, indexed.content_hash);
    assert.equal(edited.index_status, 'pending');
    assert.equal(await waitingJobs(t, edited.id), 1);
    assert.equal((await kbSource(t, acme, agentId))?.status, 'indexing');
    await indexAll(t, agentId);
    assert.equal((await search(acme, agentId, 'crimson heron')).length, 1);
    assert.deepEqual(await search(acme, agentId, 'amber pelican'), [], 'the old text is gone');

    // A new slug is a new public URL: re-indexed so answers link to the page that exists.
    await patch(acme, article.id, { slug: 'warranty-terms' });
    const [moved] = await kbDocuments(t, agentId);
    assert.equal(moved?.url, `${PUBLIC_BASE_URL}/kb/${acme.workspace.slug}/warranty-terms`);
    assert.equal(await waitingJobs(t, edited.id), 1);
    await indexAll(t, agentId);
    const [hit] = await search(acme, agentId, 'crimson heron');
    assert.equal(hit?.url, `${PUBLIC_BASE_URL}/kb/${acme.workspace.slug}/warranty-terms`);

    // A new title is part of the text (its first line).
    await patch(acme, article.id, { title: 'Guarantee' });
    const [retitled] = await kbDocuments(t, agentId);
    assert.equal(retitled?.title, 'Guarantee');
    assert.match(retitled?.content_text ?? '', /^Guarantee\n/);
    assert.equal(await waitingJobs(t, edited.id), 1);
  });

  test('unpublishing or deleting removes the document and its chunks from every agent', async () => {
    const acme = await seedTenant(t, 'Removal Help');
    const first = await createAgent(t, acme);
    const second = await createAgent(t, acme);
    const article = await create(acme, {
      title: 'Gift cards',
      body_markdown: 'Gift cards carry a **cobalt otter** stamp.',
      is_published: true,
    });
    const kept = await create(acme, { title: 'Kept', body_markdown: 'Still here.', is_published: true });
    await indexAll(t, first);
    await indexAll(t, second);
    const docIds = (await kbDocuments(t, first))
      .concat(await kbDocuments(t, second))
      .filter((doc) => doc.external_id === article.id)
      .map((doc) => doc.id);
    assert.equal(docIds.length, 2);

    await patch(acme, article.id, { is_published: false });
    for (const agentId of [first, second]) {
      assert.deepEqual(
        (await kbDocuments(t, agentId)).map((doc) => doc.external_id),
        [kept.id],
      );
      assert.deepEqual(await search(acme, agentId, 'cobalt otter'), []);
      assert.equal((await kbSource(t, acme, agentId))?.status, 'indexed');
    }
    for (const id of docIds) assert.deepEqual(await chunksOf(t, id), [], 'chunks cascade');

    await patch(acme, article.id, { is_published: true });
    await indexAll(t, first);
    assert.equal((await search(acme, first, 'cobalt otter')).length, 1, 'republished');

    const res = await t.app.inject({
      method: 'DELETE',
      url: `${KB_ARTICLES}/${article.id}`,
      headers: acme.auth,
    });
    assert.equal(res.statusCode, 204);
    for (const agentId of [first, second]) {
      assert.deepEqual(
        (await kbDocuments(t, agentId)).map((doc) => doc.external_id),
        [kept.id],
      );
      assert.deepEqual(await search(acme, agentId, 'cobalt otter'), []);
    }

    // Unpublishing the last article leaves an empty source whose status is not stuck waiting.
    await patch(acme, kept.id, { is_published: false });
    const source = await kbSource(t, acme, second);
    assert.equal(source?.document_count, 0);
    assert.equal(source?.status, 'indexed');
  });

  test("another workspace's agents never get the article", async () => {
    const acme = await seedTenant(t, 'Tenant A Help');
    const other = await seedTenant(t, 'Tenant B Help');
    const mine = await createAgent(t, acme);
    const theirs = await createAgent(t, other);
    await create(other, { title: 'Theirs', body_markdown: 'Their own page.', is_published: true });
    await create(acme, {
      title: 'Ours',
      body_markdown: 'Only for the **indigo marmot** team.',
      is_published: true,
    });
    const theirsLater = await createAgent(t, other);
    for (const agentId of [theirs, theirsLater]) {
      const docs = await kbDocuments(t, agentId);
      assert.deepEqual(
        docs.map((doc) => doc.title),
        ['Theirs'],
      );
      for (const doc of docs) assert.equal(doc.workspace_id, other.workspace.id);
      await indexAll(t, agentId);
      assert.deepEqual(await search(other, agentId, 'indigo marmot'), []);
    }
    await indexAll(t, mine);
    assert.equal((await search(acme, mine, 'indigo marmot')).length, 1);
    assert.deepEqual(
      (await kbDocuments(t, mine)).map((doc) => doc.title),
      ['Ours'],
    );
  });

  test('markdown syntax and raw HTML do not reach the indexed text; code keeps its text', async () => {
    const acme = await seedTenant(t, 'Markup Help');
    const agentId = await createAgent(t, acme);
    await create(acme, {
      title: 'Embed <script>alert(1)</script> & "widget"',
      body_markdown: [
        '## Setup',
        '',
        'This is **bold** and _emphasis_ with a [guide](https://example.com/guide).',
        '',
        '- first step',
        '- second step',
        '',
        '<script>alert("x")</script>',
        '',
        '<img src=x onerror=alert(1)> <b>raw</b> <!-- hidden comment -->',
        '',
        '```html',
        '<div id="chat"></div>',
        '```',
      ].join('\n'),
      is_published: true,
    });
    const [doc] = await kbDocuments(t, agentId);
    assert.ok(doc);
    const text = doc.content_text;
    assert.equal(text.split('\n')[0], 'Embed & "widget"', 'the title is the first line, markup dropped');
    assert.match(text, /\nSetup\n/);
    assert.match(text, /This is bold and emphasis with a guide\./);
    assert.match(text, /first step/);
    assert.match(text, /raw/);
    assert.match(text, /<div id="chat"><\/div>/, 'a code block is content');
    for (const leak of [
      /\*\*/,
      /_emphasis_/,
      /##/,
      /<script/i,
      /alert/,
      /<img/i,
      /onerror/,
      /<b>/,
      /hidden comment/,
    ]) {
      assert.doesNotMatch(text, leak);
    }
    assert.doesNotMatch(text, /https:\/\/example\.com\/guide/, 'link targets are not text');
    await indexAll(t, agentId);
    const hits = await search(acme, agentId, 'emphasis guide');
    assert.ok(hits.length > 0);
    for (const hit of hits) {
      assert.equal(hit.document_id, doc.id);
      assert.doesNotMatch(hit.content, /<script|\*\*|onerror/i);
    }
  });
});
