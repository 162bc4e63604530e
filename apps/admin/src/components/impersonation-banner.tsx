import { useEffect, useState } from 'preact/hooks';
import { endImpersonation, session } from '../session';
import { AlertIcon } from './icons';

/**
 * Minutes left until `expiresAt`, to the nearest (so a browser clock a moment behind the
 * service's still says 30 at the start), at least 1 until it has passed, then 0.
 */
export function minutesLeft(expiresAt: string, now: number): number {
  const ms = Date.parse(expiresAt) - now;
  return ms <= 0 ? 0 : Math.max(1, Math.round(ms / 60_000));
}

/**
 * The banner over every screen while a platform operator views the console as a member:
 * "Viewing as <member> — <workspace>, ends in N min — End". It counts down, and at the end
 * gives the operator their own session back (as the End button does).
 */
export function ImpersonationBanner() {
  const current = session.value;
  const impersonation = current?.impersonation ?? null;
  const [now, setNow] = useState(() => Date.now());
  const [isEnding, setEnding] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!impersonation) return;
    const timer = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(timer);
  }, [impersonation]);

  const left = impersonation ? minutesLeft(impersonation.expires_at, now) : 0;
  const onEnd = () => {
    setEnding(true);
    setError(null);
    endImpersonation().catch(() => {
      setEnding(false);
      setError('Could not end it. Try again.');
    });
  };
  useEffect(() => {
    if (impersonation && left === 0 && !isEnding) onEnd();
  });

  if (!current || !impersonation) return null;
  const member = current.user.name || current.user.email;
  return (
    <section class="impersonation-banner" aria-label="Viewing as a member">
      <AlertIcon size={20} />
      <p>
        <strong>
          Viewing as {member} — {current.workspace.name}
        </strong>
        <span>
          , ends in {left} min{error ? ` — ${error}` : ''}
        </span>
      </p>
      <button type="button" class="button" onClick={onEnd} disabled={isEnding}>
        End
      </button>
    </section>
  );
}
