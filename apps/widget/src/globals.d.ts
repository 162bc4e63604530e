/** Locale tag → content hash of every locale file in the build (injected by scripts/build.mjs). */
declare const __WIDGET_LOCALES__: Record<string, string> | undefined;
