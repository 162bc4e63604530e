/** Types of check-layers.mjs, for the test that runs it. */
export declare const LAYERS: readonly (readonly string[])[];
export declare function unitOf(path: string): string;
export declare function layerOf(unit: string): number;
export declare function importsOf(source: string): { specifier: string; isTypeOnly: boolean }[];
export declare function checkLayers(files: ReadonlyMap<string, string>): string[];
export declare function readSources(srcDir: string): Map<string, string>;
