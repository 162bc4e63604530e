import { CONSOLE_PAGE_SIZE, type PagedList } from '../paged-list';

/** Under a paged list: how many rows are shown, and a button that loads the next page. */
export function LoadMore<T extends { id: string }>(props: { list: PagedList<T>; noun: string }) {
  const { list } = props;
  const count = list.items?.length ?? 0;
  // A list that fits on one page needs no note.
  if (count === 0 || (!list.hasMore && count <= CONSOLE_PAGE_SIZE)) return null;
  return (
    <div class="load-more">
      <p class="muted" aria-live="polite">
        {list.hasMore ? `Showing the first ${count} ${props.noun}.` : `All ${count} ${props.noun} shown.`}
      </p>
      {list.hasMore ? (
        <button
          type="button"
          class="button ghost"
          disabled={list.isLoadingMore}
          onClick={() => void list.loadMore()}
        >
          {list.isLoadingMore ? 'Loading…' : `Load more ${props.noun}`}
        </button>
      ) : null}
    </div>
  );
}
