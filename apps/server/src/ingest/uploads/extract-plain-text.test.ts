import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { strToU8 } from 'fflate';
import { countCsvRows, countParagraphs, extractPlainText, markdownTitle } from './extract-plain-text.js';

describe('markdownTitle', () => {
  test('the first level-one ATX heading, closing #s dropped', () => {
    assert.equal(markdownTitle('Intro\n# Returns policy\n# Second'), 'Returns policy');
    assert.equal(markdownTitle('# Returns policy ##  '), 'Returns policy');
    assert.equal(markdownTitle('   # Indented up to three'), 'Indented up to three');
    assert.equal(markdownTitle('# C#'), 'C#');
    assert.equal(markdownTitle('# Tips #hashtag'), 'Tips #hashtag');
  });

  test('no title: other levels, no space, code indentation, an empty heading', () => {
    assert.equal(markdownTitle('## Sub\n#NoSpace\n    # Code block\n# \n# ###'), undefined);
    assert.equal(markdownTitle(''), undefined);
  });

  test('a line past 1,000 characters is skipped; a heading after it is still found', () => {
    assert.equal(markdownTitle(`# ${'x'.repeat(1_000)}\n# Short`), 'Short');
  });

  test('a heading followed by a long run of spaces reads in linear time', { timeout: 20_000 }, () => {
    // The old multiline regex backtracked quadratically here: 40,000 spaces took 5.7 s.
    const hostile = `# a${' '.repeat(300_000)}x\n`.repeat(3);
    assert.equal(markdownTitle(hostile), undefined);
    assert.equal(markdownTitle(`${hostile}# Found`), 'Found');
    assert.equal(extractPlainText(strToU8(`${hostile}# Found`), 'md').title, 'Found');
  });
});

describe('how much of a text file is read', () => {
  test('CSV rows: a quoted line break stays in its record; blank lines are no records', () => {
    assert.equal(countCsvRows('a,b\n1,2\n3,4'), 3);
    assert.equal(countCsvRows('a,b\n1,2\n'), 2);
    assert.equal(countCsvRows('name,note\n"Ann","two\nlines"\n\n  \n"Bob","say ""hi""\n"\n'), 3);
    assert.equal(countCsvRows(''), 0);
    assert.deepEqual(extractPlainText(strToU8('sku\r\nA-1\r\nB-2\r\n'), 'csv').extent, { rows: 3 });
  });

  test('paragraphs of Markdown and text: blocks between blank lines', () => {
    assert.equal(countParagraphs('# Title\n\nOne\nstill one\n \nTwo\n\n\n\nThree'), 4);
    assert.equal(countParagraphs('\n\n'), 0);
    assert.deepEqual(extractPlainText(strToU8('# T\n\nBody'), 'md'), {
      text: '# T\n\nBody',
      extent: { paragraphs: 2 },
      title: 'T',
    });
    assert.deepEqual(extractPlainText(strToU8('one'), 'txt').extent, { paragraphs: 1 });
  });
});
