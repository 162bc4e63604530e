import {
  DEFAULT_THEME,
  isOriginAllowed,
  LAUNCHER_POSITIONS,
  type TAgentEmbed,
  ZAgent,
  ZAgentCreate,
  ZAgentEmbed,
  ZSource,
} from '@service/contract';
import type { TargetedEvent, TargetedSubmitEvent } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { api, fieldErrorsOf } from '../api';
import { Field, FormMessage } from '../components/field';
import { useFocusOnShow } from '../components/use-focus-on-show';
import { useForm } from '../components/use-form';
import { PATHS } from '../paths';
import './new-agent.css';

const STEPS = ['Name', 'Your site', 'Appearance', 'Embed'] as const;
type Draft = {
  name: string;
  siteUrl: string;
  crawl: boolean;
  launcherLabel: string;
  primary: string;
  position: (typeof LAUNCHER_POSITIONS)[number];
};
type Created = { agentId: string; embed: TAgentEmbed; crawlError: string | null };

/**
 * The create wizard: name → the site it answers on (its origin allowed, optionally crawled) →
 * appearance → the embed snippet to paste, with a copy button. Each step checks its fields with
 * the contract's schema before moving on; the agent is created, published, at the end.
 */
export function NewAgent() {
  const [step, setStep] = useState(0);
  const [draft, setDraft] = useState<Draft>({
    name: '',
    siteUrl: '',
    crawl: true,
    launcherLabel: DEFAULT_THEME.launcher_label,
    primary: DEFAULT_THEME.primary,
    position: DEFAULT_THEME.position,
  });
  const { errors, setErrors, notice, setNotice, isBusy, submit } = useForm();
  const [created, setCreated] = useState<Created | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const set =
    <K extends keyof Draft>(key: K) =>
    (value: Draft[K]) =>
      setDraft({ ...draft, [key]: value });

  // Each step's heading takes the focus, so a screen reader announces where the user is.
  useFocusOnShow(heading, step);

  const site = siteOf(draft.siteUrl);
  const body = () => ({
    name: draft.name,
    is_published: true,
    ...(site ? { allowed_origins: [site.origin] } : {}),
    theme: { launcher_label: draft.launcherLabel, primary: draft.primary, position: draft.position },
  });

  /** The fields of the step, checked with the contract's schema of the create body. */
  const stepErrors = (): Record<string, string[]> => {
    const parsed = ZAgentCreate.safeParse(body());
    if (parsed.success) return {};
    const all = fieldErrorsOf(parsed.error);
    const keys =
      [['name'], ['allowed_origins.0'], ['theme.launcher_label', 'theme.primary', 'theme.position']][step] ??
      [];
    return Object.fromEntries(Object.entries(all).filter(([key]) => keys.includes(key)));
  };

  const onSubmit = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setNotice(null);
    const found = stepErrors();
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    if (step < 2) {
      setStep(step + 1);
      return;
    }
    await submit({
      check: () => ZAgentCreate.safeParse(body()),
      send: async (agentBody) => {
        const agent = await api('/agents', ZAgent, { method: 'POST', body: agentBody });
        const path = `/agents/${encodeURIComponent(agent.id)}`;
        let crawlError: string | null = null;
        if (draft.crawl && site) {
          // The agent exists either way; a refused crawl is said on the last step, not lost.
          await api(`${path}/sources`, ZSource, {
            method: 'POST',
            body: { type: 'crawl', url: site.url },
          }).catch((error: unknown) => {
            crawlError = error instanceof Error ? error.message : 'The crawl could not be started.';
          });
        }
        const embed = await api(`${path}/embed`, ZAgentEmbed);
        setCreated({ agentId: agent.id, embed, crawlError });
        setStep(3);
      },
      // A field the service names may be on an earlier step: its message says it here too.
      alwaysShowMessage: true,
      fallback: 'The agent could not be created.',
    });
  };

  return (
    <section class="page" aria-labelledby="wizard-title">
      <div class="page-head">
        <h1 id="wizard-title">New agent</h1>
        <a href={PATHS.agents} class="button ghost">
          {created ? 'Back to agents' : 'Cancel'}
        </a>
      </div>
      <ol class="steps" aria-label="Steps">
        {STEPS.map((label, index) => (
          <li
            key={label}
            class={index === step ? 'current' : index < step ? 'done' : ''}
            aria-current={index === step ? 'step' : undefined}
          >
            <span class="step-number">{index + 1}</span>
            <span>{label}</span>
          </li>
        ))}
      </ol>
      {step === 3 && created ? (
        <EmbedStep created={created} headingRef={heading} />
      ) : (
        <form class="card wizard-card" onSubmit={onSubmit} noValidate>
          {notice ? <FormMessage kind={notice.kind}>{notice.text}</FormMessage> : null}
          {step === 0 ? (
            <>
              <h2 ref={heading} tabIndex={-1}>
                What should the agent be called?
              </h2>
              <Field
                name="name"
                label="Agent name"
                value={draft.name}
                onInput={set('name')}
                errors={errors}
                hint="Visitors see it in the chat header, e.g. “Acme helper”."
                required
              />
            </>
          ) : null}
          {step === 1 ? (
            <>
              <h2 ref={heading} tabIndex={-1}>
                Where will it answer?
              </h2>
              <Field
                name="allowed_origins.0"
                label="Your site’s address"
                type="url"
                value={draft.siteUrl}
                onInput={set('siteUrl')}
                errors={errors}
                autocomplete="url"
                hint="e.g. https://shop.example.com. The widget loads on this site only (any page of it). Leave it empty to add sites later."
              />
              <label class="check">
                <input
                  type="checkbox"
                  checked={draft.crawl}
                  onChange={(event: TargetedEvent<HTMLInputElement>) =>
                    set('crawl')(event.currentTarget.checked)
                  }
                />
                <span>Read its pages now, so the agent can answer from them</span>
              </label>
            </>
          ) : null}
          {step === 2 ? (
            <>
              <h2 ref={heading} tabIndex={-1}>
                How should the chat button look?
              </h2>
              <Field
                name="theme.launcher_label"
                label="Button text"
                value={draft.launcherLabel}
                onInput={set('launcherLabel')}
                errors={errors}
              />
              <div class="field">
                <label for="field-theme-primary">Colour</label>
                <div class="color-row">
                  <input
                    id="field-theme-primary"
                    type="color"
                    value={draft.primary}
                    onInput={(event: TargetedEvent<HTMLInputElement>) =>
                      set('primary')(event.currentTarget.value)
                    }
                  />
                  <code>{draft.primary}</code>
                </div>
              </div>
              <fieldset class="field">
                <legend>Corner</legend>
                {LAUNCHER_POSITIONS.map((position) => (
                  <label class="check" key={position}>
                    <input
                      type="radio"
                      name="position"
                      value={position}
                      checked={draft.position === position}
                      onChange={() => set('position')(position)}
                    />
                    <span>{position === 'bottom-right' ? 'Bottom right' : 'Bottom left'}</span>
                  </label>
                ))}
              </fieldset>
              <div class="preview-chip-row" aria-hidden="true">
                {/* Set through the CSSOM (allowed by the console's CSP), not a style attribute. */}
                <span
                  class={`preview-chip ${draft.position}`}
                  style={{ background: draft.primary, color: textOn(draft.primary) }}
                >
                  {draft.launcherLabel}
                </span>
              </div>
            </>
          ) : null}
          <div class="actions">
            {step > 0 ? (
              <button type="button" class="button ghost" onClick={() => setStep(step - 1)} disabled={isBusy}>
                Back
              </button>
            ) : null}
            <button type="submit" class="button primary" disabled={isBusy}>
              {step < 2 ? 'Next' : isBusy ? 'Creating…' : 'Create agent'}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

function EmbedStep(props: { created: Created; headingRef: { current: HTMLHeadingElement | null } }) {
  const { embed, crawlError } = props.created;
  const [copied, setCopied] = useState<string | null>(null);
  const code = useRef<HTMLElement>(null);
  const onCopy = async () => {
    try {
      await navigator.clipboard.writeText(embed.snippet);
      setCopied('Copied. Paste it before </body> on every page of your site.');
    } catch {
      // No clipboard access (an insecure origin, a denied permission): select it for Ctrl+C.
      const selection = window.getSelection();
      if (code.current && selection) selection.selectAllChildren(code.current);
      setCopied('Selected: press Ctrl+C (or ⌘C) to copy it.');
    }
  };
  return (
    <div class="card wizard-card">
      <h2 ref={props.headingRef} tabIndex={-1}>
        Your agent is live
      </h2>
      <p class="muted">
        Paste this line into your site’s pages, just before <code>&lt;/body&gt;</code>.{' '}
        {embed.allowed_origins.length > 0
          ? `It works on ${embed.allowed_origins.join(', ')}.`
          : 'Allow your site’s address in the agent’s settings first: until then it loads nowhere.'}
      </p>
      {crawlError ? (
        <FormMessage kind="error">{`Reading your site did not start: ${crawlError}`}</FormMessage>
      ) : null}
      <pre class="snippet">
        <code ref={code}>{embed.snippet}</code>
      </pre>
      <div class="actions">
        <button type="button" class="button primary" onClick={() => void onCopy()}>
          Copy snippet
        </button>
        <a class="button ghost" href={PATHS.agents}>
          Done
        </a>
      </div>
      <p class="copy-status" role="status">
        {copied ?? ''}
      </p>
      <PageCheck allowedOrigins={embed.allowed_origins} />
    </div>
  );
}

/**
 * "Check my page": whether the widget will load on a page, by the same origin rule the service
 * applies at widget init (`isOriginAllowed` from the contract).
 */
function PageCheck(props: { allowedOrigins: readonly string[] }) {
  const [page, setPage] = useState('');
  const [result, setResult] = useState<{ kind: 'error' | 'info'; text: string } | null>(null);
  const onCheck = (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setResult(pageCheckResult(page, props.allowedOrigins));
  };
  return (
    <form class="page-check" onSubmit={onCheck} noValidate>
      <h3>Check a page of your site</h3>
      <Field
        name="page_url"
        label="Page address"
        hint="For example https://shop.example.com/products"
        value={page}
        onInput={(value) => {
          setPage(value);
          setResult(null);
        }}
        inputMode="text"
      />
      <button type="submit" class="button ghost">
        Check
      </button>
      {result ? <FormMessage kind={result.kind}>{result.text}</FormMessage> : null}
    </form>
  );
}

/** The verdict of {@link PageCheck} for what the owner typed. */
function pageCheckResult(
  typed: string,
  allowedOrigins: readonly string[],
): { kind: 'error' | 'info'; text: string } {
  const site = siteOf(typed);
  if (!site || !/^https?:\/\//i.test(site.url)) {
    return { kind: 'error', text: 'Enter a page address, such as https://shop.example.com/products.' };
  }
  if (isOriginAllowed(allowedOrigins, site.origin)) {
    return { kind: 'info', text: `Allowed: the chat loads on ${site.url} (its site is ${site.origin}).` };
  }
  const allowed = allowedOrigins.length > 0 ? allowedOrigins.join(', ') : 'no site yet';
  return {
    kind: 'error',
    text: `Not allowed: that page is on ${site.origin}, and this agent allows ${allowed}. Add ${site.origin} to the agent’s allowed sites, or the chat will not load there.`,
  };
}

/** Black or white, whichever reads better on `hex` (WCAG relative luminance). */
function textOn(hex: string): string {
  const channels = [1, 3, 5].map((at) => {
    const value = Number.parseInt(hex.slice(at, at + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  });
  const [r = 0, g = 0, b = 0] = channels;
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return luminance > 0.179 ? '#000000' : '#ffffff';
}

/**
 * What the owner typed as their site: the origin to allow (any page of the site) and the page to
 * start reading from. `shop.example.com/shop` is read as https; text that is no web address is
 * passed on as typed, so the contract's check names the problem next to the field.
 */
function siteOf(input: string): { origin: string; url: string } | null {
  const typed = input.trim();
  if (!typed) return null;
  // Some URL parsers (Chromium's) accept and escape a space in a host name: never a site.
  if (/\s/.test(typed)) return { origin: typed, url: typed };
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(typed) ? typed : `https://${typed}`);
    if (url.protocol === 'http:' || url.protocol === 'https:') return { origin: url.origin, url: url.href };
  } catch {
    // Not a URL at all: the schema refuses it below.
  }
  return { origin: typed, url: typed };
}
