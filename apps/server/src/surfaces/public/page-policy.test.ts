import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PUBLIC_PAGE_CSP, publicPagePolicy } from './page-policy.js';

describe('publicPagePolicy', () => {
  const imgSrc = (policy: string) => policy.split('; ').find((d) => d.startsWith('img-src '));

  it('adds the exact origins of the embedded agent to img-src only', () => {
    const policy = publicPagePolicy(['http://127.0.0.1:4010', 'https://shop.example', 'http://[::1]:8080']);
    assert.equal(
      imgSrc(policy),
      "img-src 'self' data: https: http://127.0.0.1:4010 https://shop.example http://[::1]:8080",
    );
    assert.equal(policy.replace(/^.*?img-src[^;]*; /, ''), PUBLIC_PAGE_CSP.replace(/^.*?img-src[^;]*; /, ''));
  });

  it('leaves out anything that is not an exact origin', () => {
    const hostile = [
      '*',
      'http://a.example; script-src *',
      'http://a.example script-src',
      "'unsafe-inline'",
      'javascript:alert(1)',
      'http://a.example/path',
      'http://a.example,b',
      'data:',
      'http://a.example\r\nx: y',
    ];
    assert.equal(imgSrc(publicPagePolicy(hostile)), "img-src 'self' data: https:");
  });
});
