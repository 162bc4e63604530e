// The shop's one stylesheet, served as /assets/shop.css (a file, not inline, so the CSP can say
// `style-src 'self'`).

/** The CSS of every page. */
export const SHOP_CSS = `:root { --ink: #2b1d14; --paper: #fbf7f2; --accent: #8a4b2a; --muted: #7a6a5f; --line: #e6dcd2; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.55 system-ui, sans-serif; color: var(--ink); background: var(--paper); }
a { color: var(--accent); }
header.site, footer.site { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; justify-content: space-between;
  padding: 1rem 1.5rem; border-bottom: 1px solid var(--line); background: #fff; }
footer.site { border-top: 1px solid var(--line); border-bottom: 0; color: var(--muted); font-size: 0.875rem; margin-top: 3rem; }
.brand { font-weight: 700; font-size: 1.2rem; text-decoration: none; color: var(--ink); }
nav a, nav form { margin-left: 1rem; }
main { max-width: 64rem; margin: 0 auto; padding: 1.5rem; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); gap: 1.25rem; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 0.75rem; padding: 1rem; display: flex; flex-direction: column; gap: 0.5rem; }
.card img, .product img { width: 100%; height: auto; border-radius: 0.5rem; background: var(--line); }
.product { display: grid; grid-template-columns: minmax(12rem, 20rem) 1fr; gap: 2rem; }
.price { font-weight: 700; }
.price del { color: var(--muted); font-weight: 400; margin-right: 0.4rem; }
.badge { display: inline-block; font-size: 0.75rem; padding: 0.1rem 0.5rem; border-radius: 1rem; background: var(--line); }
.badge.sale { background: #f6d7c3; }
.badge.out { background: #e8e2dd; color: var(--muted); }
button { font: inherit; padding: 0.45rem 0.9rem; border-radius: 0.5rem; border: 0; background: var(--accent); color: #fff; cursor: pointer; }
button.link { background: none; color: var(--accent); padding: 0; text-decoration: underline; }
button:disabled { background: var(--muted); cursor: not-allowed; }
form.inline { display: inline; }
table { width: 100%; border-collapse: collapse; background: #fff; }
th, td { text-align: left; padding: 0.5rem; border-bottom: 1px solid var(--line); }
td.num, th.num { text-align: right; }
.notice { padding: 0.75rem 1rem; border-radius: 0.5rem; background: #e7f2e4; border: 1px solid #bcd9b4; }
.notice.warn { background: #fbeee0; border-color: #ecc9a2; }
.muted { color: var(--muted); }
article.post { background: #fff; border: 1px solid var(--line); border-radius: 0.75rem; padding: 1.5rem 2rem; }
ul.posts { list-style: none; padding: 0; display: grid; gap: 1rem; }
@media (max-width: 40rem) { .product { grid-template-columns: 1fr; } nav a, nav form { margin-left: 0.5rem; } }
`;
