/** Types of service-code.mjs. */

/** How a cluster process runs the service: node's own arguments and the two entry points. */
export type ServiceCode = { node: string[]; main: string; cli: string };

/** The node arguments and entry points of `name` ('sources' or 'built'), or null for any other name. */
export declare function serviceCode(name: string): ServiceCode | null;

/**
 * Why `apps/server/dist` or `packages/contract/dist` under `root` cannot stand for its sources
 * (missing, or older than a source file other than a test), or null.
 */
export declare function staleBuild(root: string): string | null;
