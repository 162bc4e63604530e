// Renders the nginx configuration of docs/deploy-nginx.md from nginx-site.conf.template: the
// site part (upstream + server) operators use as is, and, for the cluster script, a whole
// nginx.conf around it that runs unprivileged in the foreground under a temporary prefix.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const SITE_TEMPLATE_PATH = join(here, 'nginx-site.conf.template');

/** What the docs show: three instances on a private network, TLS ended in front or by nginx. */
export const DOC_EXAMPLE = Object.freeze({
  servers: ['10.0.0.11:8080', '10.0.0.12:8080', '10.0.0.13:8080'],
  listen: '80',
  serverName: 'chat.example.com',
  accessLog: '/var/log/nginx/chat-service.access.log',
});

/** Passive health: after 3 failures in 10 s an instance is left out for 10 s. */
const SERVER_OPTIONS = 'max_fails=3 fail_timeout=10s';

/** The site configuration for `servers` (host:port each), listening on `listen`. */
export function renderSiteConfig({ servers, listen, serverName, accessLog }) {
  if (!Array.isArray(servers) || servers.length === 0) throw new Error('renderSiteConfig: no servers');
  const values = {
    servers: servers.map((server) => `    server ${server} ${SERVER_OPTIONS};`).join('\n'),
    listen,
    server_name: serverName,
    access_log: accessLog,
  };
  return readFileSync(SITE_TEMPLATE_PATH, 'utf8').replace(/\{\{(\w+)\}\}/g, (whole, name) => {
    const value = values[name];
    if (value === undefined) throw new Error(`nginx template: unknown placeholder ${whole}`);
    return String(value);
  });
}

/**
 * A whole nginx.conf for `nginx -p <prefix> -c <file>`: foreground, its pid, logs and
 * temporary files under `prefix`, and the site configuration inside `http`.
 */
export function renderMainConfig({ prefix, site }) {
  return [
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(prefix, 'nginx.pid')};`,
    `error_log ${join(prefix, 'error.log')} warn;`,
    'events { worker_connections 1024; }',
    'http {',
    `    client_body_temp_path ${join(prefix, 'client_body')};`,
    `    proxy_temp_path ${join(prefix, 'proxy')};`,
    `    fastcgi_temp_path ${join(prefix, 'fastcgi')};`,
    `    uwsgi_temp_path ${join(prefix, 'uwsgi')};`,
    `    scgi_temp_path ${join(prefix, 'scgi')};`,
    '    default_type application/octet-stream;',
    site
      .split('\n')
      .map((line) => (line === '' ? line : `    ${line}`))
      .join('\n'),
    '}',
    '',
  ].join('\n');
}
