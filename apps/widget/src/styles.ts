// All widget CSS lives in the shadow root. `:host` resets whatever the page puts on the
// container (important declarations of the inner context win over the page's), and the
// root sets colour and font explicitly so nothing inherited from the page leaks in.

const FONT = 'system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif';

/** The widget's stylesheet; theme values come in as custom properties on `.r`. */
export const CSS = `
:host{all:initial!important;display:block!important}
.r{--p:#1f6feb;--pc:#fff;--pt:#1f6feb;--a:#f5a623;--rad:12px;position:fixed;z-index:2147483000;bottom:20px;right:20px;font:400 15px/1.45 ${FONT};color:#1b1f24;text-align:start;-webkit-text-size-adjust:100%}
.r *,.r *::before,.r *::after{box-sizing:border-box;margin:0;padding:0;border:0;background:none;color:inherit;font:inherit;letter-spacing:normal;text-transform:none;text-decoration:none;text-shadow:none;float:none;max-height:none}
.r.left{right:auto;left:20px}
.off,.r [hidden]{display:none!important}
.r svg{width:22px;height:22px;fill:currentColor;flex:none}
.r button{cursor:pointer;-webkit-appearance:none;appearance:none}
.r :focus-visible{outline:3px solid var(--a);outline-offset:2px}
.l{display:flex;align-items:center;gap:8px;height:56px;min-width:56px;padding:0 17px;border-radius:28px;background:var(--p);color:var(--pc);font-weight:600;box-shadow:0 4px 14px rgba(0,0,0,.25);transition:transform .15s}
.l:hover{transform:scale(1.04)}
.b{position:absolute;bottom:68px;right:0;width:max-content;max-width:260px;padding:12px 34px 12px 14px;background:#fff;color:#1b1f24;border-radius:var(--rad);box-shadow:0 4px 18px rgba(0,0,0,.2);cursor:pointer;animation:in .2s ease-out}
.left .b{right:auto;left:0}
.b .x{position:absolute;top:4px;right:4px}
.p{position:fixed;bottom:20px;right:20px;width:380px;height:min(640px,calc(100vh - 40px));display:flex;flex-direction:column;background:#fff;color:#1b1f24;border-radius:var(--rad);box-shadow:0 8px 30px rgba(0,0,0,.25);overflow:hidden;animation:in .18s ease-out}
.left .p{right:auto;left:20px}
.hd{display:flex;align-items:center;gap:2px;padding:8px 6px 8px 16px;background:var(--p);color:var(--pc)}
.hd h2{flex:1;font-size:16px;font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.i,.x{display:inline-flex;align-items:center;justify-content:center;width:36px;height:36px;border-radius:8px}
.x{width:28px;height:28px}
.x svg{width:16px;height:16px}
.i:hover,.x:hover{background:rgba(127,127,127,.2)}
.hd :focus-visible{outline-color:var(--pc)}
.mn{position:absolute;top:54px;right:8px;z-index:2;min-width:210px;padding:4px;background:#fff;color:#1b1f24;border-radius:8px;box-shadow:0 4px 18px rgba(0,0,0,.2)}
[dir=rtl] .mn{right:auto;left:8px}
.mn button{display:block;width:100%;padding:10px 12px;border-radius:6px;text-align:start}
.mn button:hover{background:#eef0f3}
.lg{flex:1;overflow-y:auto;overscroll-behavior:contain;display:flex;flex-direction:column;gap:10px;padding:16px;background:#f6f7f9}
.m{max-width:86%;padding:9px 13px;border-radius:14px;background:#fff;color:#1b1f24;box-shadow:0 1px 2px rgba(0,0,0,.1);overflow-wrap:anywhere;align-self:flex-start}
.m.v{align-self:flex-end;background:var(--p);color:var(--pc);white-space:pre-wrap}
.m .w{display:block;font-size:12px;font-weight:600;opacity:.75}
.m p+p,.m ul,.m ol,.m pre,.m p+ul,.m p+ol{margin-top:8px}
.m ul,.m ol{padding-inline-start:20px}
.m ul{list-style:disc}.m ol{list-style:decimal}
.m strong{font-weight:700}.m em{font-style:italic}
.m a{color:var(--pt);text-decoration:underline}
.m code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em;padding:1px 4px;border-radius:4px;background:rgba(127,127,127,.15)}
.m pre{padding:8px;border-radius:6px;background:#eef0f3;overflow-x:auto;white-space:pre}
.m pre code{padding:0;background:none}
.m .cite{font-size:.75em;vertical-align:super;color:var(--pt);margin:0 1px}
.src{padding-top:6px;border-top:1px solid #e1e4e8;font-size:13px}
.src .hl{background:#fff4d6}
.n{align-self:center;max-width:90%;padding:4px 10px;font-size:13px;color:#4d5761;text-align:center}
.d{display:inline-block;width:6px;height:6px;margin:0 2px;border-radius:50%;background:#8a939d;animation:bl 1.2s infinite}
.d:nth-child(2){animation-delay:.2s}.d:nth-child(3){animation-delay:.4s}
.k{display:flex;flex-direction:column;gap:8px;margin-top:8px}
.c{display:flex;gap:10px;padding:10px;border:1px solid #e1e4e8;border-radius:10px;background:#fff;color:#1b1f24}
.c img{width:64px;height:64px;object-fit:cover;border-radius:6px;flex:none}
.c .g{display:flex;flex-direction:column;gap:4px;min-width:0;flex:1}
.c .t{font-weight:600}
.c s{opacity:.6;margin-inline-start:6px}
.s{font-size:13px;color:#4d5761}
.row{display:flex;flex-wrap:wrap;gap:6px;align-items:center}
.code{font-family:ui-monospace,Menlo,Consolas,monospace;font-weight:700;padding:3px 8px;border:1px dashed var(--a);border-radius:6px;background:#fffaf0}
.btn{display:inline-flex;align-items:center;justify-content:center;gap:6px;padding:7px 12px;border-radius:8px;background:var(--p);color:var(--pc);font-size:14px;font-weight:600}
.btn.sec{background:#eef0f3;color:#1b1f24}
.btn svg{width:16px;height:16px}
.btn:disabled{opacity:.55;cursor:default}
.chip{padding:6px 12px;border:1px solid var(--pt);border-radius:16px;background:#fff;color:var(--pt);font-size:14px}
.st{justify-content:flex-end}
.f{flex-direction:column;align-self:stretch}
.f label{display:flex;flex-direction:column;gap:3px;font-size:13px;font-weight:600}
.f input,.f textarea,.cp textarea{width:100%;padding:8px 10px;border:1px solid #c2c8cf;border-radius:8px;background:#fff;color:#1b1f24;font-size:16px;font-weight:400}
.e{color:#b42318;font-size:13px;font-weight:400}
.down svg{transform:rotate(180deg)}
.cp{display:flex;align-items:flex-end;gap:8px;padding:10px;border-top:1px solid #e1e4e8;background:#fff}
.cp textarea{flex:1;min-height:42px;max-height:120px;resize:none;border-radius:21px;padding:10px 14px;line-height:1.35}
.sd{width:42px;height:42px;display:inline-flex;align-items:center;justify-content:center;border-radius:50%;background:var(--p);color:var(--pc);flex:none}
.sd:disabled{opacity:.5;cursor:default}
[dir=rtl] .sd svg{transform:scaleX(-1)}
@keyframes in{from{opacity:0;transform:translateY(8px)}}
@keyframes bl{50%{opacity:.25}}
@media (max-width:479px){.p,.left .p{top:var(--vt,0);left:0;right:0;bottom:auto;width:100%;height:var(--vh,100%);border-radius:0}}
.open .l,.open .b{display:none}
@media (prefers-reduced-motion:reduce){.r *{animation:none!important;transition:none!important}}
`;

/** Installs the stylesheet: constructable when supported (CSP-proof), a <style> otherwise. */
export function adoptStyles(shadow: ShadowRoot, css: string): void {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    shadow.adoptedStyleSheets = [sheet];
  } catch {
    const style = shadow.ownerDocument.createElement('style');
    style.textContent = css;
    shadow.appendChild(style);
  }
}
