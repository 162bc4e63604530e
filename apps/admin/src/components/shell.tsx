import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { PATHS } from '../paths';
import { session, signOut } from '../session';
import { BookIcon, ChatIcon, KeyIcon, ShieldIcon, SignOutIcon } from './icons';
import { WorkspaceSwitcher } from './workspace-switcher';

const NAV = [
  { href: PATHS.agents, label: 'Agents', Icon: ChatIcon },
  { href: PATHS.kb, label: 'Knowledge base', Icon: BookIcon },
  { href: PATHS.tokens, label: 'API tokens', Icon: KeyIcon },
  { href: PATHS.twoFactor, label: 'Two-factor', Icon: ShieldIcon },
] as const;

/** The signed-in frame: skip link, header (product, workspace, user, sign out), nav, content. */
export function Shell(props: { children: ComponentChildren }) {
  const { path } = useLocation();
  const [isSigningOut, setSigningOut] = useState(false);
  const current = session.value;
  const onSignOut = () => {
    setSigningOut(true);
    signOut().catch(() => setSigningOut(false));
  };
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href={PATHS.agents}>
          <ChatIcon size={22} />
          <span>Console</span>
        </a>
        <WorkspaceSwitcher />
        <div class="topbar-end">
          {current ? <span class="user-email">{current.user.email}</span> : null}
          <button type="button" class="button ghost" onClick={onSignOut} disabled={isSigningOut}>
            <SignOutIcon size={18} />
            <span>Sign out</span>
          </button>
        </div>
      </header>
      <nav class="sidenav" aria-label="Main">
        <ul>
          {NAV.map(({ href, label, Icon }) => (
            <li key={href}>
              <a
                href={href}
                aria-current={path === href ? 'page' : path.startsWith(href) ? 'true' : undefined}
              >
                <Icon size={18} />
                <span>{label}</span>
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="content" tabIndex={-1}>
        {props.children}
      </main>
    </div>
  );
}
