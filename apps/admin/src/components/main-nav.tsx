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

type Entry = { href: string; label: string; Icon: typeof ChatIcon; permission: TPermission };

/**
 * The entries in groups, each entry with the permission its page needs: a role without it does
 * not see the entry, and a group left empty is not shown. The first group has no heading: the
 * daily work. Then what configures the workspace, then the signed-in person's own account.
 */
type NavGroup = { heading: string | null; entries: ReadonlyArray<Entry> };

const NAV: ReadonlyArray<NavGroup> = [
  {
    heading: null,
    entries: [
      { href: PATHS.inbox, label: 'Inbox', Icon: InboxIcon, permission: 'workspace.read' },
      { href: PATHS.agents, label: 'Agents', Icon: ChatIcon, permission: 'workspace.read' },
      { href: PATHS.kb, label: 'Knowledge base', Icon: BookIcon, permission: 'workspace.read' },
      { href: PATHS.leads, label: 'Leads', Icon: UsersIcon, permission: 'workspace.read' },
    ],
  },
  {
    heading: 'Workspace',
    entries: [
      { href: PATHS.members, label: 'Members', Icon: UsersIcon, permission: 'members.manage' },
      { href: PATHS.savedReplies, label: 'Saved replies', Icon: ChatIcon, permission: 'workspace.configure' },
      { href: PATHS.webhooks, label: 'Webhooks', Icon: GlobeIcon, permission: 'workspace.configure' },
      { href: PATHS.tokens, label: 'API tokens', Icon: KeyIcon, permission: 'workspace.configure' },
      { href: PATHS.modelKey, label: 'Model key', Icon: KeyIcon, permission: 'workspace.configure' },
      { href: PATHS.plan, label: 'Plan and usage', Icon: BarsIcon, permission: 'workspace.read' },
      { href: PATHS.auditLog, label: 'Audit log', Icon: BookIcon, permission: 'workspace.configure' },
    ],
  },
  {
    heading: 'Your account',
    entries: [
      { href: PATHS.profile, label: 'Profile', Icon: LockIcon, permission: 'account.self' },
      { href: PATHS.twoFactor, label: 'Two-factor', Icon: ShieldIcon, permission: 'account.self' },
    ],
  },
];
/** The platform operators' entry (every workspace of the installation). */
const PLATFORM_GROUP: NavGroup = {
  heading: 'Installation',
  entries: [{ href: PATHS.platform, label: 'Platform', Icon: GlobeIcon, permission: 'account.self' }],
};

/**
 * The main navigation. Wide screens show the entries as a column beside the content; narrow
 * ones (CSS, ≤ 720 px) fold them behind a Menu button (a disclosure: `aria-expanded`, Escape
 * closes it and gives the focus back to the button, following a link closes it). Platform
 * operators (in their own session) also get the Platform entry.
 */
export function MainNav(props: { path: string; isOperator?: boolean }) {
  const [isOpen, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const allowed = NAV.map(
    (group): NavGroup => ({
      heading: group.heading,
      entries: group.entries.filter(({ permission }) => can(permission)),
    }),
  ).filter((group) => group.entries.length > 0);
  const groups = props.isOperator ? [...allowed, PLATFORM_GROUP] : allowed;
  const here = groups.flatMap((group) => group.entries).find(({ href }) => props.path.startsWith(href));
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
        {groups.map((group) =>
          group.heading === null ? (
            group.entries.map((entry) => (
              <NavLink key={entry.href} {...entry} path={props.path} onFollow={() => setOpen(false)} />
            ))
          ) : (
            <li key={group.heading} class="nav-group">
              <span class="nav-heading" id={`nav-${group.heading.replace(/\W+/g, '-').toLowerCase()}`}>
                {group.heading}
              </span>
              <ul aria-labelledby={`nav-${group.heading.replace(/\W+/g, '-').toLowerCase()}`}>
                {group.entries.map((entry) => (
                  <NavLink key={entry.href} {...entry} path={props.path} onFollow={() => setOpen(false)} />
                ))}
              </ul>
            </li>
          ),
        )}
      </ul>
    </nav>
  );
}

/** One entry: marked as the current page, or as the section the current page belongs to. */
function NavLink(props: {
  href: string;
  label: string;
  Icon: typeof ChatIcon;
  path: string;
  onFollow: () => void;
}) {
  const { href, label, Icon, path } = props;
  return (
    <li>
      <a
        href={href}
        aria-current={path === href ? 'page' : path.startsWith(href) ? 'true' : undefined}
        onClick={props.onFollow}
      >
        <Icon size={18} />
        <span>{label}</span>
      </a>
    </li>
  );
}
