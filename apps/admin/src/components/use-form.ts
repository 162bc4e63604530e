import { useState } from 'preact/hooks';
import type { z } from 'zod';
import { ApiError, fieldErrorsOf, waitMessage } from '../api';

/** Field path → messages, as the service's `errors` and {@link fieldErrorsOf} key them. */
export type FieldErrors = Record<string, string[]>;

/** A form-level message: an error that names no field, a wait, or a result. */
export type FormNotice = { kind: 'error' | 'info'; text: string };

/** What {@link useForm}'s `submit` does: check, send, and how to read a refusal. */
export type SubmitOptions<T> = {
  /** The input checked with the contract's schema; its issues become field errors, nothing is sent. */
  check: () => z.ZodSafeParseResult<T>;
  /** Sends the checked input; anything it throws is shown on the form. */
  send: (data: T) => Promise<void>;
  /** Reads an ApiError before the defaults; answers true when it dealt with it. */
  onApiError?: (error: ApiError) => boolean;
  /** Renames error keys to the fields on screen (one input for two body fields, say). */
  errorsFor?: (errors: FieldErrors) => FieldErrors;
  /**
   * Shows the service's message beside its field errors too: for forms where a field the service
   * names may not be on screen (a wizard's earlier step). Otherwise the message (which repeats
   * the first field error) shows only when no field is named.
   */
  alwaysShowMessage?: boolean;
  /** The message when the failure is not the service's answer (the network, say). */
  fallback: string;
  /** Shows the busy state of a secondary action (a test button); by default `isBusy` is set. */
  busy?: (isBusy: boolean) => void;
};

/**
 * One form's submit → busy → refusal cycle. `submit` clears the message, checks the input
 * (issues next to their fields), sends it with the button busy, and on a refusal shows the
 * service's field errors next to the fields and its message (a 429 as the wait) on the form. A
 * 401 shows nothing: the session ended and the console is already on its way to sign-in.
 * Answers whether the input was sent and accepted.
 */
export function useForm() {
  const [errors, setErrors] = useState<FieldErrors>({});
  const [notice, setNotice] = useState<FormNotice | null>(null);
  const [isBusy, setBusy] = useState(false);

  const showError = (text: string) => setNotice({ kind: 'error', text });

  async function submit<T>(options: SubmitOptions<T>): Promise<boolean> {
    const rename = options.errorsFor ?? ((found: FieldErrors) => found);
    const showBusy = options.busy ?? setBusy;
    setNotice(null);
    const checked = options.check();
    if (!checked.success) {
      setErrors(rename(fieldErrorsOf(checked.error)));
      return false;
    }
    setErrors({});
    showBusy(true);
    try {
      await options.send(checked.data);
      return true;
    } catch (error) {
      if (!(error instanceof ApiError)) {
        showError(error instanceof Error ? error.message : options.fallback);
        return false;
      }
      if (options.onApiError?.(error) || error.status === 401) return false;
      const fields = rename(error.errors);
      setErrors(fields);
      if (Object.keys(fields).length === 0 || options.alwaysShowMessage) {
        showError(error.status === 429 ? waitMessage(error.retryAfter) : error.message);
      }
      return false;
    } finally {
      showBusy(false);
    }
  }

  /** Clears the field errors and the message (a step or a mode changed). */
  const clear = () => {
    setErrors({});
    setNotice(null);
  };

  return { errors, setErrors, notice, setNotice, showError, isBusy, submit, clear };
}

/**
 * An `onApiError` for the pages a mailed link opens: a 422 naming `token` (the link is invalid,
 * expired or used) calls `setLinkBad` instead of showing the error as a form notice.
 */
export function badLinkHandler(setLinkBad: (bad: boolean) => void): (error: ApiError) => boolean {
  return (error) => {
    if (error.status === 422 && error.errors.token) {
      setLinkBad(true);
      return true;
    }
    return false;
  };
}
