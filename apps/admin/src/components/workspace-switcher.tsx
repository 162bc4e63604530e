import { type TWorkspaceMembership, ZAdminSession, ZWorkspaceMembership } from '@service/contract';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { z } from 'zod';
import { api } from '../api';
import { PATHS } from '../paths';
import { session } from '../session';
import { ChevronDownIcon } from './icons';
import './workspace-switcher.css';

/**
 * The header's workspace: its name, and for a user in several workspaces a button that lists
 * them and switches the session to another (then the console starts again on its agents list).
 * A platform operator viewing as a member gets the name only.
 */
export function WorkspaceSwitcher() {
  const current = session.value;
  const [workspaces, setWorkspaces] = useState<TWorkspaceMembership[] | null>(null);
  const [isOpen, setOpen] = useState(false);
  const [switching, setSwitching] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const root = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const workspaceId = current?.workspace.id;

  useEffect(() => {
    if (!workspaceId) return;
    // Without the list the header still names the workspace: a failure here hides only the switch.
    api('/account/workspaces', z.array(ZWorkspaceMembership))
      .then(setWorkspaces)
      .catch(() => setWorkspaces(null));
  }, [workspaceId]);

  // A layout effect: the listeners are there as soon as the list is, so an Escape pressed the
  // moment it opens closes it (a plain effect waits for the next frame, and the key was lost).
  useLayoutEffect(() => {
    if (!isOpen) return;
    const onPointer = (event: PointerEvent) => {
      if (event.target instanceof Node && !root.current?.contains(event.target)) setOpen(false);
    };
    // Escape closes the list and gives the focus back to its button.
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      toggle.current?.focus();
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [isOpen]);

  if (!current) return null;
  // Viewing as a member stays in the one workspace it was opened for: no switch.
  if (!workspaces || workspaces.length < 2 || current.impersonation) {
    return (
      <span class="workspace" title="Workspace">
        {current.workspace.name}
      </span>
    );
  }

  const close = () => {
    setOpen(false);
    toggle.current?.focus();
  };
  const choose = async (target: TWorkspaceMembership) => {
    if (target.current) return close();
    setSwitching(target.id);
    setMessage(null);
    try {
      await api('/account/workspace', ZAdminSession, { method: 'POST', body: { workspace_id: target.id } });
      // A fresh start in the other workspace: no screen keeps the previous workspace's rows.
      window.location.assign(PATHS.agents);
    } catch (error) {
      setSwitching(null);
      setMessage(error instanceof Error ? error.message : 'Could not switch workspaces.');
    }
  };

  return (
    <div class="workspace-switcher" ref={root}>
      <button
        type="button"
        class="workspace workspace-toggle"
        ref={toggle}
        aria-expanded={isOpen}
        aria-controls="workspace-list"
        onClick={() => setOpen(!isOpen)}
      >
        <span class="sr-only">Workspace: </span>
        <span class="workspace-name">{current.workspace.name}</span>
        <ChevronDownIcon size={16} />
        <span class="sr-only"> (switch workspace)</span>
      </button>
      {isOpen ? (
        <div class="workspace-panel" id="workspace-list">
          <p class="workspace-panel-title">Switch workspace</p>
          <ul>
            {workspaces.map((workspace) => (
              <li key={workspace.id}>
                <button
                  type="button"
                  class="workspace-option"
                  aria-current={workspace.current ? 'true' : undefined}
                  disabled={!workspace.can_switch || switching !== null}
                  onClick={() => void choose(workspace)}
                >
                  <span class="workspace-option-name">{workspace.name}</span>
                  <span class="workspace-option-role">
                    {switching === workspace.id
                      ? 'Switching…'
                      : workspace.current
                        ? 'Current'
                        : workspace.can_switch
                          ? workspace.role
                          : `${workspace.role}: no console access`}
                  </span>
                </button>
              </li>
            ))}
          </ul>
          {message ? (
            <p class="workspace-panel-error" role="alert">
              {message}
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
