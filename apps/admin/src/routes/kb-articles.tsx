import {
  type TKbArticle,
  ZKbArticle,
  ZKbArticleCreate,
  ZKbArticleUpdate,
  ZKbPreviewHtml,
} from '@service/contract';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, fieldErrorsOf } from '../api';
import { Field, FormMessage } from '../components/field';
import { PlusIcon } from '../components/icons';
import { LoadMore } from '../components/load-more';
import { dateText } from '../date-text';
import { usePagedList } from '../paged-list';
import { PATHS } from '../paths';
import { session } from '../session';
import './access.css';
import { can } from '../session';

/** Which article the editor shows: none (the list), a new one, or an existing one. */
type Editing = null | 'new' | TKbArticle;

/** Where a published article is served (the service's public knowledge-base pages). */
function publicPath(slug: string): string {
  const workspace = session.value?.workspace.slug ?? '';
  return `/kb/${encodeURIComponent(workspace)}/${encodeURIComponent(slug)}`;
}

/** The workspace's knowledge-base articles: list, write with a live preview, publish. */
export function KbArticles() {
  const list = usePagedList('/kb/articles?order=desc', ZKbArticle, 'Could not load the articles.');
  const [editing, setEditing] = useState<Editing>(null);
  const [saved, setSaved] = useState<string | null>(null);

  const load = list.reload;
  useEffect(() => {
    void load();
  }, [load]);
  const articles = list.items;

  const onSaved = (article: TKbArticle) => {
    setEditing(article);
    setSaved(article.is_published ? 'Saved and published.' : 'Saved as a draft.');
    void load();
  };

  if (editing !== null) {
    return (
      <section class="page" aria-labelledby="kb-title">
        <div class="page-head">
          <h1 id="kb-title">{editing === 'new' ? 'New article' : 'Edit article'}</h1>
          <button
            type="button"
            class="button ghost"
            onClick={() => {
              setEditing(null);
              setSaved(null);
            }}
          >
            Back to the list
          </button>
        </div>
        <Editor
          key={editing === 'new' ? 'new' : editing.id}
          article={editing === 'new' ? null : editing}
          saved={saved}
          onSaved={onSaved}
          onChanged={() => setSaved(null)}
        />
      </section>
    );
  }

  return (
    <section class="page" aria-labelledby="kb-title">
      <div class="page-head">
        <h1 id="kb-title">Knowledge base</h1>
        <div class="actions">
          {/* Each action is offered to the roles that may take it (docs/roles.md). */}
          {can('workspace.configure') ? (
            <a class="button ghost" href={PATHS.kbSettings}>
              Settings
            </a>
          ) : null}
          {can('knowledge.edit') ? (
            <button type="button" class="button primary" onClick={() => setEditing('new')}>
              <PlusIcon size={18} />
              <span>New article</span>
            </button>
          ) : null}
        </div>
      </div>
      <p class="muted">
        Articles are public help pages of your workspace. Every agent answers from the published ones, and
        links to them.
      </p>
      {articles === null && list.error === null ? (
        <p class="muted" aria-busy="true">
          Loading articles…
        </p>
      ) : null}
      {list.error ? <FormMessage kind="error">{list.error}</FormMessage> : null}
      {articles?.length === 0 ? (
        <div class="card empty-state">
          <h2>No articles yet</h2>
          <p class="muted">
            Write your first one: shipping times, returns, opening hours. Publish it and your agents use it at
            once.
          </p>
        </div>
      ) : null}
      {articles && articles.length > 0 ? (
        <ul class="row-list" aria-label="Articles">
          {articles.map((article) => (
            <li key={article.id} class="row-card">
              <div class="row-title">
                <h2>{article.title}</h2>
                <span class={`badge ${article.is_published ? 'ok' : 'draft'}`}>
                  {article.is_published ? 'Published' : 'Draft'}
                </span>
              </div>
              <p class="muted">
                <code>{article.slug}</code>
                {article.category ? ` · ${article.category}` : ''} · updated {dateText(article.updated_at)}
              </p>
              <div class="actions">
                {can('knowledge.edit') ? (
                  <button type="button" class="button ghost" onClick={() => setEditing(article)}>
                    Edit<span class="visually-hidden"> {article.title}</span>
                  </button>
                ) : null}
                {article.is_published ? (
                  <a class="button ghost" href={publicPath(article.slug)} target="_blank" rel="noopener">
                    Open public page<span class="visually-hidden"> of {article.title}</span>
                  </a>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      <LoadMore list={list} noun="articles" />
    </section>
  );
}

/** Waits this long after the last keystroke before asking the service for a preview. */
const PREVIEW_DELAY_MS = 300;

function Editor(props: {
  article: TKbArticle | null;
  saved: string | null;
  onSaved: (article: TKbArticle) => void;
  onChanged: () => void;
}) {
  const { article } = props;
  const [title, setTitle] = useState(article?.title ?? '');
  const [slug, setSlug] = useState(article?.slug ?? '');
  const [category, setCategory] = useState(article?.category ?? '');
  const [body, setBody] = useState(article?.body_markdown ?? '');
  const [isPublished, setPublished] = useState(article?.is_published ?? false);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [isBusy, setBusy] = useState(false);
  const preview = usePreview(body);

  // An edit clears the saved note and the edited field's errors (they were about the old value).
  const changed =
    <T,>(set: (value: T) => void, field?: string) =>
    (value: T) => {
      set(value);
      props.onChanged();
      if (field && errors[field]) setErrors(({ [field]: _, ...rest }) => rest);
    };

  const onSubmit = async (event: Event) => {
    event.preventDefault();
    setMessage(null);
    const input = {
      title,
      body_markdown: body,
      category,
      is_published: isPublished,
      ...(slug.trim() ? { slug: slug.trim() } : {}),
    };
    const parsed = article ? ZKbArticleUpdate.safeParse(input) : ZKbArticleCreate.safeParse(input);
    if (!parsed.success) {
      const found = fieldErrorsOf(parsed.error);
      if (found.title) found.title = ['Give the article a title.'];
      setErrors(found);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const next = article
        ? await api(`/kb/articles/${encodeURIComponent(article.id)}`, ZKbArticle, {
            method: 'PATCH',
            body: parsed.data,
          })
        : await api('/kb/articles', ZKbArticle, { method: 'POST', body: parsed.data });
      setSlug(next.slug);
      props.onSaved(next);
    } catch (error) {
      if (error instanceof ApiError) {
        setErrors(error.errors);
        if (Object.keys(error.errors).length === 0) setMessage(error.message);
      } else setMessage('Could not save the article.');
    } finally {
      setBusy(false);
    }
  };

  const bodyErrors = errors.body_markdown ?? [];
  return (
    <form class="card form-card" onSubmit={(event) => void onSubmit(event)} noValidate>
      <Field name="title" label="Title" value={title} onInput={changed(setTitle, 'title')} errors={errors} />
      <Field
        name="slug"
        label="Address"
        hint={
          article
            ? 'The last part of the public page’s address.'
            : 'Optional: made from the title when empty.'
        }
        value={slug}
        onInput={changed(setSlug, 'slug')}
        errors={errors}
      />
      <Field
        name="category"
        label="Category (optional)"
        hint="The section the article is listed under on the public knowledge base’s home page."
        value={category}
        onInput={changed(setCategory, 'category')}
        errors={errors}
      />
      <div class="kb-editor">
        <div class="field">
          <label for="field-body_markdown">Text (Markdown)</label>
          <textarea
            id="field-body_markdown"
            name="body_markdown"
            value={body}
            onInput={(event) => changed(setBody, 'body_markdown')(event.currentTarget.value)}
            aria-invalid={bodyErrors.length > 0 ? 'true' : undefined}
            aria-describedby={bodyErrors.length > 0 ? 'field-body_markdown-error' : undefined}
          />
          {bodyErrors.length > 0 ? (
            <p class="field-error" id="field-body_markdown-error">
              {bodyErrors.join(' ')}
            </p>
          ) : null}
        </div>
        <div>
          <div class="kb-preview-head">
            <span id="kb-preview-label">Preview</span>
            <span class="muted" aria-live="polite">
              {preview.status}
            </span>
          </div>
          {/* The service's own renderer made this HTML: raw HTML stripped, links and images checked. */}
          <section
            class="kb-preview"
            aria-labelledby="kb-preview-label"
            dangerouslySetInnerHTML={{ __html: preview.html }}
          />
        </div>
      </div>
      <label class="toggle">
        <input
          type="checkbox"
          checked={isPublished}
          onChange={(event) => changed(setPublished)(event.currentTarget.checked)}
        />
        <span>Published (a public page, and your agents answer from it)</span>
      </label>
      {message ? <FormMessage kind="error">{message}</FormMessage> : null}
      <div class="actions">
        <button type="submit" class="button primary" disabled={isBusy}>
          {isBusy ? 'Saving…' : 'Save'}
        </button>
        {article?.is_published ? (
          <a class="button ghost" href={publicPath(article.slug)} target="_blank" rel="noopener">
            Open public page
          </a>
        ) : null}
      </div>
      <p class="copy-status" role="status">
        {props.saved ?? ''}
      </p>
    </form>
  );
}

/** The server-rendered preview of `markdown`, refreshed a moment after the text stops changing. */
function usePreview(markdown: string): { html: string; status: string } {
  const [html, setHtml] = useState('');
  const [status, setStatus] = useState('');
  const latest = useRef(0);
  useEffect(() => {
    const ticket = ++latest.current;
    if (markdown.trim() === '') {
      setHtml('');
      setStatus('');
      return;
    }
    setStatus('Updating…');
    const timer = setTimeout(() => {
      api('/kb/preview', ZKbPreviewHtml, { method: 'POST', body: { markdown } })
        .then((answer) => {
          // An older answer arriving late must not replace a newer one.
          if (ticket !== latest.current) return;
          setHtml(answer.html);
          setStatus('');
        })
        .catch((error: unknown) => {
          if (ticket !== latest.current) return;
          setStatus(error instanceof Error ? `Preview failed: ${error.message}` : 'Preview failed.');
        });
    }, PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [markdown]);
  return { html, status };
}
