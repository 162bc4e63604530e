import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { strToU8 } from 'fflate';
import { extractPlainText, markdownTitle } from './extract-plain-text.js';

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
