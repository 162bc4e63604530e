import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../config/config.js';
import { pickMailLanguage, renderPasswordResetMail } from './mail-templates.js';

test('the mail language follows Accept-Language by q, regional tags fall back to their base, else English', () => {
  assert.equal(pickMailLanguage(undefined), 'en');
  assert.equal(pickMailLanguage(''), 'en');
  assert.equal(pickMailLanguage('de-CH, fr;q=0.8'), 'de');
  assert.equal(pickMailLanguage('it, fr-CA;q=0.5, de;q=0.4'), 'fr');
  assert.equal(pickMailLanguage('fr;q=0, de;q=0.1'), 'de', 'q=0 means not acceptable');
  assert.equal(pickMailLanguage('ja, zh'), 'en');
  assert.equal(pickMailLanguage('x'.repeat(10_000)), 'en');
});

test('the reset mail: link and lifetime in both bodies; hostile text is escaped in the HTML', () => {
  const link = 'https://chat.example.test/admin/reset-password#token=a.b.c';
  const mail = renderPasswordResetMail({
    language: 'en',
    email: '"<script>x</script>"@example.com',
    link,
    minutes: 60,
  });
  assert.equal(mail.subject, 'Reset your password');
  assert.ok(mail.text.includes(link));
  assert.match(mail.text, /within 60 minutes/);
  assert.ok(mail.html.includes(`href="${link}"`));
  assert.ok(!mail.html.includes('<script>'));
  assert.ok(mail.html.includes('&lt;script&gt;'));
  const quoted = renderPasswordResetMail({
    language: 'fr',
    email: 'a@b.c',
    link: 'https://x.test/"onmouseover="x',
    minutes: 60,
  });
  assert.ok(quoted.html.includes('href="https://x.test/&quot;onmouseover=&quot;x"'));
  assert.match(quoted.subject, /mot de passe/);
});

test('SMTP_URL must be smtp:// or smtps://; MAIL_FROM one line; the URL is not echoed in the error', () => {
  assert.equal(
    loadConfig({ SMTP_URL: 'smtp://u:p@127.0.0.1:2525' }).mail.smtpUrl,
    'smtp://u:p@127.0.0.1:2525',
  );
  assert.equal(loadConfig({}).mail.smtpUrl, undefined);
  assert.throws(
    () => loadConfig({ SMTP_URL: 'http://user:s3cret@mail.example' }),
    (error: Error) => /SMTP_URL: must be an smtp/.test(error.message) && !error.message.includes('s3cret'),
  );
  assert.throws(() => loadConfig({ MAIL_FROM: 'a@b.c\r\nBcc: x@y.z' }), /MAIL_FROM: must be one line/);
});
