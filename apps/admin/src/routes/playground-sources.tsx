import type { TCitation, TPlaygroundChunk } from '@service/contract';
import { useState } from 'preact/hooks';

/** Characters of a chunk's text shown before "Show full text". */
const EXCERPT_CHARS = 280;

const RETRIEVERS = [
  { key: 'fulltext', label: 'Full-text' },
  { key: 'trigram', label: 'Trigram' },
  { key: 'vector', label: 'Vector' },
] as const;

/** An http(s) URL as a link target; anything else (a path, a stray scheme) is shown as text only. */
function linkTarget(url: string | null): string | null {
  if (url === null) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/**
 * "Sources used" under an answer: every chunk retrieval gave it, best first, each with its
 * title (a link to its page), its text (an excerpt that expands), the rank each retriever gave
 * it and the fused score; the ones the answer cites say so.
 */
export function SourcesUsed(props: { turnId: number; chunks: TPlaygroundChunk[]; citations: TCitation[] }) {
  const cited = new Set(props.citations.map((citation) => citation.id));
  if (props.chunks.length === 0) {
    return <p class="muted pg-no-sources">No indexed chunk matched this question.</p>;
  }
  return (
    <details class="pg-sources">
      <summary>
        Sources used ({props.chunks.length}
        {cited.size > 0 ? `, ${cited.size} cited` : ''})
      </summary>
      <ol class="pg-chunks">
        {props.chunks.map((chunk) => (
          <ChunkItem key={chunk.chunk_id} turnId={props.turnId} chunk={chunk} isCited={cited.has(chunk.id)} />
        ))}
      </ol>
    </details>
  );
}

function ChunkItem(props: { turnId: number; chunk: TPlaygroundChunk; isCited: boolean }) {
  const { chunk } = props;
  const [isOpen, setOpen] = useState(false);
  const href = linkTarget(chunk.url);
  const isLong = chunk.content.length > EXCERPT_CHARS;
  const textId = `pg-${props.turnId}-chunk-${chunk.id}`;
  const text = isOpen || !isLong ? chunk.content : `${chunk.content.slice(0, EXCERPT_CHARS).trimEnd()}…`;
  return (
    <li class="pg-chunk">
      <div class="pg-chunk-head">
        <span class="pg-num">[{chunk.id}]</span>
        {href ? (
          <a href={href} target="_blank" rel="noopener noreferrer" class="pg-title">
            {chunk.title}
          </a>
        ) : (
          <span class="pg-title">{chunk.title}</span>
        )}
        {props.isCited ? <span class="pg-badge">Cited</span> : null}
      </div>
      {chunk.url && !href ? <p class="muted pg-url">{chunk.url}</p> : null}
      <table class="pg-ranks">
        <caption class="sr-only">How retrieval ranked [{chunk.id}]</caption>
        <thead>
          <tr>
            {RETRIEVERS.map((retriever) => (
              <th key={retriever.key} scope="col">
                {retriever.label}
              </th>
            ))}
            <th scope="col">Fused score</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            {RETRIEVERS.map((retriever) => {
              const rank = chunk.ranks[retriever.key];
              return (
                <td key={retriever.key}>
                  {rank === undefined ? (
                    <>
                      <span aria-hidden="true">—</span>
                      <span class="sr-only">not found</span>
                    </>
                  ) : (
                    `#${rank}`
                  )}
                </td>
              );
            })}
            <td>{chunk.score.toFixed(4)}</td>
          </tr>
        </tbody>
      </table>
      <p class="pg-text" id={textId}>
        {text}
      </p>
      {isLong ? (
        <button
          type="button"
          class="button link"
          aria-expanded={isOpen}
          aria-controls={textId}
          onClick={() => setOpen(!isOpen)}
        >
          {isOpen ? 'Show less' : 'Show full text'}
        </button>
      ) : null}
    </li>
  );
}
