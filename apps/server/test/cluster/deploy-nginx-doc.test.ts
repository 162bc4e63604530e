// docs/deploy-nginx.md shows the configuration the cluster script runs: both come from
// scripts/cluster/nginx-site.conf.template, and nginx accepts what the script generates.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  DOC_EXAMPLE,
  renderMainConfig,
  renderSiteConfig,
} from '../../../../scripts/cluster/nginx-config.mjs';
import { findNginx, ROOT } from '../../../../scripts/cluster/start-cluster.mjs';

describe('the documented nginx configuration', () => {
  test('docs/deploy-nginx.md holds the template rendered for its example, word for word', () => {
    const doc = readFileSync(join(ROOT, 'docs/deploy-nginx.md'), 'utf8');
    const site = renderSiteConfig(DOC_EXAMPLE);
    assert.ok(
      doc.includes(`\`\`\`nginx\n${site}\`\`\``),
      'the docs drifted from the template: paste the rendered example again',
    );
    for (const server of DOC_EXAMPLE.servers)
      assert.ok(site.includes(`server ${server} max_fails=3 fail_timeout=10s;`));
  });

  test('the template keeps what streams, limits and forwarded headers need', () => {
    const site = renderSiteConfig(DOC_EXAMPLE);
    for (const line of [
      'proxy_buffering off;',
      'proxy_set_header X-Forwarded-For $remote_addr;',
      'proxy_set_header X-Forwarded-Proto $scheme;',
      'proxy_set_header X-Forwarded-Host $host;',
      'proxy_next_upstream error timeout http_503;',
      'client_max_body_size 33m;',
      'client_max_body_size 501m;',
      'proxy_read_timeout 75s;',
    ])
      assert.ok(site.includes(line), `missing: ${line}`);
    // A pooled upstream connection would turn a stopping instance into errors for POSTs.
    assert.doesNotMatch(site, /^\s*keepalive\s+\d+;/m);
    assert.throws(() => renderSiteConfig({ ...DOC_EXAMPLE, servers: [] }), /no servers/);
  });

  test('nginx accepts the generated configuration (nginx -t)', {
    skip: findNginx() ? false : 'nginx is not installed',
  }, () => {
    const prefix = mkdtempSync(join(tmpdir(), 'svc-nginx-t-'));
    try {
      const site = renderSiteConfig({
        servers: ['127.0.0.1:1', '127.0.0.1:2'],
        listen: '127.0.0.1:1',
        serverName: 'localhost',
        accessLog: join(prefix, 'access.log'),
      });
      const conf = join(prefix, 'nginx.conf');
      writeFileSync(conf, renderMainConfig({ prefix, site }));
      const checked = spawnSync(
        findNginx() ?? 'nginx',
        ['-t', '-p', prefix, '-c', conf, '-e', join(prefix, 'error.log')],
        {
          encoding: 'utf8',
        },
      );
      assert.equal(checked.status, 0, checked.stderr);
      assert.match(checked.stderr, /syntax is ok/);
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
  });
});
