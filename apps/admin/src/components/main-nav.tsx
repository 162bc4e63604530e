import type { TPermission } from '@service/contract';
import type { TargetedKeyboardEvent } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { PATHS } from '../paths';
import { can } from '../session';
import {
  BarsIcon,
  BookIcon,
  ChatIcon,
  GlobeIcon,
  InboxIcon,
  KeyIcon,
  LockIcon,
  MenuIcon,
  ShieldIcon,
  UsersIcon,
} from './icons';

/** The entries, each with the permission its page needs: a role without it does not see the entry. */
const NAV: ReadonlyArray<{ href: string; label: string; Icon: typeof ChatIcon; permission: TPermission }> = [
  { href: PATHS.inbox, label: 'Inbox', Icon: InboxIcon, permission: 'workspace.read' },
  { href: PATHS.agents, label: 'Agents', Icon: ChatIcon, permission: 'workspace.read' },
  { href: PATHS.kb, label: 'Knowledge base', Icon: BookIcon, permission: 'workspace.read' },
  { href: PATHS.leads, label: 'Leads', Icon: UsersIcon, permission: 'workspace.read' },
  { href: PATHS.members, label: 'Members', Icon: UsersIcon, permission: 'members.manage' },
  { href: PATHS.tokens, label: 'API tokens', Icon: KeyIcon, permission: 'workspace.configure' },
  { href: PATHS.modelKey, label: 'Model key', Icon: KeyIcon, permission: 'workspace.configure' },
  { href: PATHS.auditLog, label: 'Audit log', Icon: BookIcon, permission: 'workspace.configure' },
  { href: PATHS.webhooks, label: 'Webhooks', Icon: GlobeIcon, permission: 'workspace.configure' },
  { href: PATHS.plan, label: 'Plan and usage', Icon: BarsIcon, permission: 'workspace.read' },
  { href: PATHS.profile, label: 'Profile', Icon: LockIcon, permission: 'account.self' },
  { href: PATHS.twoFactor, label: 'Two-factor', Icon: ShieldIcon, permission: 'account.self' },
];
/** The platform operators' entry (every workspace of the installation). */
const PLATFORM_ENTRY = { href: PATHS.platform, label: 'Platform', Icon: GlobeIcon } as const;

/**
 * The main navigation. Wide screens show the entries as a column beside the content; narrow
 * ones (CSS, ≤ 720 px) fold them behind a Menu button (a disclosure: `aria-expanded`, Escape
 * closes it and gives the focus back to the button, following a link closes it). Platform
 * operators (in their own session) also get the Platform entry.
 */
export function MainNav(props: { path: string; isOperator?: boolean }) {
  const [isOpen, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const allowed = NAV.filter(({ permission }) => can(permission));
  const entries = props.isOperator ? [...allowed, PLATFORM_ENTRY] : allowed;
  const here = entries.find(({ href }) => props.path.startsWith(href));
  // A new page closes the menu: the link chosen has done its job.
  useEffect(() => setOpen(false), [props.path]);
  const onKeyDown = (event: TargetedKeyboardEvent<HTMLElement>) => {
    if (event.key !== 'Escape' || !isOpen) return;
    setOpen(false);
    button.current?.focus();
  };
  return (
    <nav class={`sidenav${isOpen ? ' open' : ''}`} aria-label="Main" onKeyDown={onKeyDown}>
      <button
        ref={button}
        type="button"
        class="nav-toggle"
        aria-expanded={isOpen}
        aria-controls="main-nav-list"
        onClick={() => setOpen(!isOpen)}
      >
        <MenuIcon size={20} />
        <span>Menu</span>
        {here ? <span class="nav-here">{here.label}</span> : null}
      </button>
      <ul id="main-nav-list">
        {entries.map(({ href, label, Icon }) => (
          <li key={href}>
            <a
              href={href}
              aria-current={props.path === href ? 'page' : props.path.startsWith(href) ? 'true' : undefined}
              onClick={() => setOpen(false)}
            >
              <Icon size={18} />
              <span>{label}</span>
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
