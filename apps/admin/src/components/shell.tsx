import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { HandoffAlerts } from '../handoff-alerts';
import { PATHS } from '../paths';
import { session, signOut } from '../session';
import { ChatIcon, SignOutIcon } from './icons';
import { ImpersonationBanner } from './impersonation-banner';
import { MainNav } from './main-nav';
import { PlanBanner } from './plan-banner';
import { WorkspaceSwitcher } from './workspace-switcher';

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
      <ImpersonationBanner />
      <header class="topbar">
        <a class="brand" href={PATHS.agents}>
          <ChatIcon size={22} />
          <span>Console</span>
        </a>
        <WorkspaceSwitcher />
        <div class="topbar-end">
          <HandoffAlerts />
          {current ? <span class="user-email">{current.user.email}</span> : null}
          {current?.impersonation ? null : (
            // While viewing as a member, the banner's End takes the place of signing out.
            <button type="button" class="button ghost" onClick={onSignOut} disabled={isSigningOut}>
              <SignOutIcon size={18} />
              <span>Sign out</span>
            </button>
          )}
        </div>
      </header>
      <MainNav path={path} isOperator={current?.user.role === 'admin' && !current.impersonation} />
      <main id="main" class="content" tabIndex={-1}>
        <PlanBanner path={path} />
        {props.children}
      </main>
    </div>
  );
}
