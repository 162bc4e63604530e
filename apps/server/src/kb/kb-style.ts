import { createHash } from 'node:crypto';

/**
 * The public pages' stylesheet (knowledge base and `/demo`): system fonts, a readable measure,
 * light and dark schemes. Served from the service's own origin, so the pages' policy needs no
 * `unsafe-inline`. A workspace colour overrides `--brand`, `--on-brand` and `--link`
 * (theme-css.ts); the defaults below pass WCAG AA on both schemes.
 */
export const KB_CSS = `*,*::before,*::after{box-sizing:border-box}
:root{--bg:#ffffff;--fg:#1c2024;--muted:#545b64;--line:#d9dde3;--panel:#f5f7f9;--code:#eef1f4;
--brand:#1f6feb;--on-brand:#ffffff;--link:#0b57d0;--mark:#fff0a8;
--font:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",Ubuntu,Cantarell,"Helvetica Neue",Arial,sans-serif;
--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--fg:#e6e9ed;--muted:#a3abb5;--line:#343a42;
--panel:#1a1f25;--code:#232931;--link:#8ab4f8;--mark:#5c4b00}}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:1.0625rem/1.65 var(--font);
display:flex;flex-direction:column;min-height:100vh}
a{color:var(--link);text-underline-offset:.15em}
a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--link);outline-offset:2px}
.wrap{width:100%;max-width:72rem;margin:0 auto;padding:0 1.25rem}
.skip{position:absolute;left:-999px;top:0;background:var(--bg);padding:.5rem 1rem;z-index:2}
.skip:focus{left:1rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.site-header{border-top:4px solid var(--brand);border-bottom:1px solid var(--line);background:var(--panel)}
.site-header .wrap{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem 1.5rem;padding-top:.9rem;padding-bottom:.9rem}
.brand{display:flex;align-items:center;gap:.6rem;color:var(--fg);text-decoration:none;font-weight:650;font-size:1.15rem;margin-right:auto;min-width:0}
.brand img{height:2.25rem;width:auto;max-width:10rem;object-fit:contain}
.brand span{overflow-wrap:anywhere}
.search{display:flex;gap:.5rem;flex:1 1 18rem;max-width:28rem}
.search input{flex:1;min-width:0;font:inherit;font-size:1rem;padding:.5rem .75rem;border:1px solid var(--muted);border-radius:.5rem;background:var(--bg);color:var(--fg)}
.button,.search button{font:inherit;font-size:1rem;font-weight:600;padding:.5rem 1rem;border:0;border-radius:.5rem;background:var(--brand);color:var(--on-brand);cursor:pointer;text-decoration:none;display:inline-block}
main{flex:1;padding-top:1.5rem;padding-bottom:3rem}
h1,h2,h3,h4{line-height:1.25;margin:1.6em 0 .5em;font-weight:650}
h1{font-size:clamp(1.7rem,1.2rem + 2vw,2.3rem);margin-top:.4em}
h2{font-size:1.45rem}h3{font-size:1.2rem}
p,ul,ol,pre,table,blockquote{margin:0 0 1rem}
.lead{font-size:1.15rem;color:var(--muted);margin-top:-.25rem}
.breadcrumbs ol{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem;padding:0;margin:0 0 .5rem;font-size:.95rem;color:var(--muted)}
.breadcrumbs li+li::before{content:"/";margin-right:.35rem;color:var(--muted)}
.breadcrumbs [aria-current]{color:var(--muted)}
.sections{display:grid;grid-template-columns:repeat(auto-fill,minmax(17rem,1fr));gap:1.25rem;margin-top:1.5rem}
.section{border:1px solid var(--line);border-radius:.75rem;padding:1rem 1.25rem;background:var(--panel)}
.section h2{margin:0 0 .5rem;font-size:1.15rem}
.section ul,.results{list-style:none;padding:0;margin:0}
.section li{padding:.3rem 0;border-top:1px solid var(--line)}
.section li:first-child{border-top:0}
.results li{padding:1rem 0;border-bottom:1px solid var(--line)}
.results h2{margin:0 0 .25rem;font-size:1.15rem}
.results p{margin:0;color:var(--muted)}
mark{background:var(--mark);color:var(--fg);padding:0 .1em;border-radius:.2em}
.article{max-width:46rem}
.article img{max-width:100%;height:auto}
.meta{color:var(--muted);font-size:.95rem}
code{font-family:var(--mono);font-size:.9em;background:var(--code);padding:.1em .35em;border-radius:.3em}
pre{background:var(--code);padding:1rem;border-radius:.5rem;overflow-x:auto;line-height:1.45}
pre code{background:none;padding:0;font-size:.88rem}
blockquote{border-left:4px solid var(--line);margin-left:0;padding:.25rem 1rem;color:var(--muted)}
.article table{display:block;overflow-x:auto;width:max-content;max-width:100%}
table{border-collapse:collapse;width:100%;font-size:.97rem}
th,td{border:1px solid var(--line);padding:.5rem .7rem;text-align:left;vertical-align:top}
th{background:var(--panel);font-weight:650}
hr{border:0;border-top:1px solid var(--line);margin:2rem 0}
.pager{display:flex;flex-wrap:wrap;justify-content:space-between;gap:1rem;margin-top:2.5rem;padding-top:1.25rem;border-top:1px solid var(--line);max-width:46rem}
.pager a{display:flex;flex-direction:column;text-decoration:none;max-width:48%}
.pager .next{margin-left:auto;text-align:right}
.pager small{color:var(--muted);font-size:.85rem}
.pager span{text-decoration:underline;text-underline-offset:.15em}
.empty{color:var(--muted)}
.site-footer{border-top:1px solid var(--line);color:var(--muted);font-size:.9rem;padding:1.25rem 0}
.site-footer .wrap{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem}
.has-widget .site-footer{padding-bottom:6rem}
.steps{padding-left:1.25rem}.steps li{margin:.4rem 0}
.card{border:1px solid var(--line);border-radius:.75rem;padding:1rem 1.25rem;background:var(--panel);margin:1.25rem 0}
.card pre{margin:0;padding:0;background:none;white-space:pre-wrap;overflow-wrap:anywhere}
@media (max-width:40rem){body{font-size:1rem}.search{max-width:none}.pager a{max-width:100%}.pager .next{text-align:left;margin-left:0}}
`;

/** The stylesheet's content hash: the `?v=` of its links and its ETag. */
export const KB_CSS_HASH = createHash('sha256').update(KB_CSS).digest('hex').slice(0, 16);
