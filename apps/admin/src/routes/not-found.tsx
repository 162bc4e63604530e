import { PATHS } from '../paths';

/** A console path that names no screen. */
export function NotFound() {
  return (
    <section class="page">
      <h1>Page not found</h1>
      <p>
        There is no console page here. <a href={PATHS.agents}>Go to your agents</a>.
      </p>
    </section>
  );
}
