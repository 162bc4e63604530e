export declare const ENGINE_SETTINGS: RegExp;
export declare const EMBEDDED_ONLY: RegExp;
/** A checker that remembers what it read: whether a test file (absolute path) depends on the engine. */
export declare function engineDependence(): (file: string) => boolean;
