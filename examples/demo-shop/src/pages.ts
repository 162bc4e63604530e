// The shop's page bodies. Every value from the database goes through `html` (escaped), except
// the shop's own authored HTML (post bodies, product descriptions), marked trusted on purpose.
import type { SiteOrder, SitePost, SiteProduct } from '@service/site-plugin';
import { euros, html, type SafeHtml, trustedHtml } from './html.js';
import type { CartView, Customer } from './shop-queries.js';

const cents = (decimal: string) => Math.round(Number(decimal) * 100);
const productPath = (product: SiteProduct) => new URL(product.permalink).pathname;
const postPath = (post: SitePost) => new URL(post.permalink).pathname;
const imagePath = (product: SiteProduct) => new URL(product.image_url).pathname;

function priceTag(product: SiteProduct): SafeHtml {
  return product.on_sale
    ? html`<span class="price"><del>${euros(cents(product.regular_price))}</del>${euros(cents(product.price))}</span>
        <span class="badge sale">On sale</span>`
    : html`<span class="price">${euros(cents(product.price))}</span>`;
}

function addToCartForm(product: SiteProduct): SafeHtml {
  if (product.stock_status !== 'instock') return html`<span class="badge out">Out of stock</span>`;
  return html`<form method="post" action="/cart/add">
    <input type="hidden" name="product_id" value="${product.wp_id}">
    <input type="hidden" name="qty" value="1">
    <button type="submit">Add to cart</button>
  </form>`;
}

/** The home page: the catalogue. */
export function renderHome(products: SiteProduct[]): SafeHtml {
  return html`<h1>Freshly roasted in Lyon</h1>
<p class="muted">Roasted on Mondays and Thursdays, shipped within two days. Ask the assistant (bottom right) about any coffee.</p>
<div class="grid">
${products.map(
  (product) => html`<div class="card">
  <a href="${productPath(product)}"><img src="${imagePath(product)}" alt="" width="240" height="240"></a>
  <a href="${productPath(product)}"><strong>${product.name}</strong></a>
  ${trustedHtml(product.short_description)}
  ${priceTag(product)}
  ${addToCartForm(product)}
</div>`,
)}
</div>`;
}

/** One product. */
export function renderProduct(product: SiteProduct): SafeHtml {
  return html`<div class="product">
  <img src="${imagePath(product)}" alt="" width="320" height="320">
  <div>
    <h1>${product.name}</h1>
    <p class="muted">SKU ${product.sku}</p>
    <p>${priceTag(product)}</p>
    ${addToCartForm(product)}
    ${trustedHtml(product.description)}
    <ul>${product.attributes.map((attribute) => html`<li>${attribute}</li>`)}</ul>
  </div>
</div>`;
}

/** The blog index. */
export function renderBlog(posts: SitePost[]): SafeHtml {
  return html`<h1>Journal</h1>
<ul class="posts">
${posts.map(
  (post) => html`<li class="card"><a href="${postPath(post)}"><strong>${post.title}</strong></a>
  <span class="muted">${post.taxonomy_terms.join(' · ')}</span><span>${post.excerpt}</span></li>`,
)}
</ul>`;
}

/** One post or page. */
export function renderPost(post: SitePost): SafeHtml {
  return html`<article class="post"><h1>${post.title}</h1>
<p class="muted">${post.taxonomy_terms.join(' · ')}</p>
${trustedHtml(post.content_html)}
</article>
<p><a href="/blog">← All posts</a></p>`;
}

/** The cart, with the coupon the chat may just have applied. */
export function renderCart(
  cart: CartView,
  appliedFromChat: { code: string; applied: boolean } | null,
): SafeHtml {
  const notice = appliedFromChat
    ? appliedFromChat.applied
      ? html`<p class="notice" data-testid="coupon-applied-from-chat">Coupon ${appliedFromChat.code} from the chat was applied to your cart.</p>`
      : html`<p class="notice warn">The coupon ${appliedFromChat.code} from the chat could not be applied.</p>`
    : html``;
  const coupon = cart.coupon
    ? cart.coupon.isValid
      ? html`<tr data-testid="cart-coupon"><td colspan="3">Coupon <strong>${cart.coupon.code}</strong> (${cart.coupon.label})</td>
          <td class="num">${cart.discountCents > 0 ? `−${euros(cart.discountCents)}` : 'free shipping'}</td></tr>`
      : html`<tr><td colspan="4" class="muted">Coupon ${cart.coupon.code} is no longer valid.</td></tr>`
    : html``;
  if (cart.lines.length === 0) {
    return html`<h1>Your cart</h1>${notice}${
      cart.coupon?.isValid
        ? html`<p data-testid="cart-coupon">Coupon <strong>${cart.coupon.code}</strong> is waiting for your first coffee.</p>`
        : html``
    }<p>Your cart is empty. <a href="/">Choose a coffee</a>.</p>`;
  }
  return html`<h1>Your cart</h1>
${notice}
<table>
<thead><tr><th>Coffee</th><th class="num">Qty</th><th class="num">Price</th><th class="num">Total</th></tr></thead>
<tbody>
${cart.lines.map(
  (
    line,
  ) => html`<tr><td><a href="/products/${line.slug}">${line.name}</a></td><td class="num">${line.qty}</td>
  <td class="num">${euros(line.unitCents)}</td><td class="num">${euros(line.totalCents)}</td></tr>`,
)}
<tr><td colspan="3">Subtotal</td><td class="num">${euros(cart.subtotalCents)}</td></tr>
${coupon}
<tr><td colspan="3">Shipping</td><td class="num">${cart.shippingCents === 0 ? 'free' : euros(cart.shippingCents)}</td></tr>
<tr><th colspan="3">Total</th><th class="num" data-testid="cart-total">${euros(cart.totalCents)}</th></tr>
</tbody>
</table>
<p><button type="button" disabled>Checkout (not part of the demo)</button></p>`;
}

/** The demo login: pick a customer, no password. */
export function renderLogin(customers: Customer[]): SafeHtml {
  return html`<h1>Log in</h1>
<p class="muted">A demo login with no password: choose a customer. Then ask the assistant "where is my order?".</p>
<div class="grid">
${customers.map(
  (customer) => html`<form method="post" action="/login" class="card">
  <strong>${customer.name === '' ? customer.email : customer.name}</strong>
  <span class="muted">${customer.email}</span>
  <input type="hidden" name="customer_id" value="${customer.id}">
  <button type="submit">Log in as ${customer.name === '' ? customer.email : customer.name}</button>
</form>`,
)}
</div>`;
}

/** The logged-in customer's orders. */
export function renderOrders(
  customer: Customer,
  orders: SiteOrder[],
  trackingUrl: (order: SiteOrder) => string,
): SafeHtml {
  return html`<h1>Orders of ${customer.name === '' ? customer.email : customer.name}</h1>
${orders.length === 0 ? html`<p>No orders yet.</p>` : html``}
${orders.map((order) => {
  const tracking = trackingUrl(order);
  return html`<section class="card" id="${order.number}">
  <strong>Order ${order.number}</strong>
  <span>${order.createdAt.toISOString().slice(0, 10)} · ${order.status} · ${euros(cents(order.total))}</span>
  <ul>${order.items.map((item) => html`<li>${item.qty} × ${item.name} (${item.sku})</li>`)}</ul>
  ${tracking === '' ? html`<span class="muted">No tracking yet.</span>` : html`<a href="${tracking}" rel="noopener noreferrer">Track the parcel</a>`}
</section>`;
})}`;
}

/** The not-found page. */
export function renderNotFound(): SafeHtml {
  return html`<h1>Not found</h1><p>That page does not exist. <a href="/">Back to the coffees</a>.</p>`;
}
