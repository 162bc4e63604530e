import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { odtContentText } from './odt-content-text.js';

/** Wraps body XML in a minimal ODF content document. */
function content(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><office:document-content><office:automatic-styles><style:style><text:p>style noise</text:p></style:style></office:automatic-styles><office:body><office:text>${body}</office:text></office:body></office:document-content>`;
}

describe('odtContentText', () => {
  test('headings and paragraphs become lines; spans keep their text', () => {
    const xml = content(
      '<text:h text:outline-level="1">Returns</text:h><text:p text:style-name="P1">Within <text:span>30</text:span> days.</text:p>',
    );
    assert.equal(odtContentText(xml), 'Returns\nWithin 30 days.');
  });

  test('spaces, tabs and line breaks', () => {
    const xml = content('<text:p>a<text:s text:c="3"/>b<text:tab/>c<text:line-break/>d<text:s/>e</text:p>');
    assert.equal(odtContentText(xml), 'a   b\tc\nd e');
  });

  test('predefined and numeric references are decoded; anything else is left as written', () => {
    const xml = content('<text:p>&lt;b&gt; &amp; &quot;x&quot; &#233; &#x20AC; &custom;</text:p>');
    assert.equal(odtContentText(xml), '<b> & "x" é € &custom;');
  });

  test('footnote bodies, annotations and text outside office:body are left out', () => {
    const xml = content(
      '<text:p>Body<text:note><text:note-citation>1</text:note-citation><text:note-body><text:p>Note</text:p></text:note-body></text:note></text:p><office:annotation><text:p>Comment</text:p></office:annotation><text:p>End</text:p>',
    );
    assert.equal(odtContentText(xml), 'Body\nEnd');
  });

  test('empty paragraphs collapse to at most one blank line', () => {
    assert.equal(
      odtContentText(content('<text:p>a</text:p><text:p/><text:p/><text:p/><text:p>b</text:p>')),
      'a\n\nb',
    );
  });

  test('malformed markup (stray or unclosed tags) costs linear time', () => {
    const hostile = content(`<text:p>${'<a "'.repeat(200_000)}</text:p>`);
    const started = performance.now();
    odtContentText(hostile);
    assert.ok(performance.now() - started < 2000, 'took too long');
  });
});
