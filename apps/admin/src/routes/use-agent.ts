import { type TAgent, ZAgent } from '@service/contract';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api';

/** The agent of a per-agent page (for its header), and why it could not be read. */
export function useAgent(agentId: string): { agent: TAgent | null; error: string | null } {
  const [agent, setAgent] = useState<TAgent | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api(`/agents/${encodeURIComponent(agentId)}`, ZAgent)
      .then(setAgent)
      .catch((caught: unknown) => {
        // A 401 ends the session; the sign-in screen says so.
        if (caught instanceof ApiError && caught.status === 401) return;
        setError(caught instanceof Error ? caught.message : 'Could not load the agent.');
      });
  }, [agentId]);
  return { agent, error };
}
