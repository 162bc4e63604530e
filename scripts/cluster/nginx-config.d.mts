/** Types of nginx-config.mjs, for the test that keeps docs/deploy-nginx.md in step. */
export declare const SITE_TEMPLATE_PATH: string;
export declare const DOC_EXAMPLE: Readonly<{
  servers: string[];
  listen: string;
  serverName: string;
  accessLog: string;
}>;
export declare function renderSiteConfig(values: {
  servers: readonly string[];
  listen: string;
  serverName: string;
  accessLog: string;
}): string;
export declare function renderMainConfig(values: { prefix: string; site: string }): string;
