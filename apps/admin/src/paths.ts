/** The console's screens (the service serves index.html for every path under /admin/). */
export const PATHS = {
  home: '/admin/',
  setup: '/admin/setup',
  signIn: '/admin/sign-in',
  forgotPassword: '/admin/forgot-password',
  /** Where the mailed reset link lands (the service's RESET_PAGE_PATH; the token is in the fragment). */
  resetPassword: '/admin/reset-password',
  /** The operator inbox (list and, on wide screens, the open conversation beside it). */
  inbox: '/admin/inbox',
  inboxConversation: '/admin/inbox/:id',
  agents: '/admin/agents',
  newAgent: '/admin/agents/new',
  knowledge: '/admin/agents/:id/knowledge',
  agentSettings: '/admin/agents/:id/settings',
  playground: '/admin/agents/:id/playground',
  corrections: '/admin/agents/:id/corrections',
  questions: '/admin/agents/:id/questions',
  quality: '/admin/agents/:id/quality',
  analytics: '/admin/agents/:id/analytics',
  tokens: '/admin/tokens',
  members: '/admin/members',
  plan: '/admin/plan',
  /** Where the mailed invite link lands (the service's ACCEPT_INVITE_PAGE_PATH; the token is in the fragment). */
  acceptInvite: '/admin/accept-invite',
  twoFactor: '/admin/account/two-factor',
  profile: '/admin/account/profile',
  leads: '/admin/leads',
  modelKey: '/admin/settings/model-key',
  auditLog: '/admin/settings/audit-log',
  webhooks: '/admin/settings/webhooks',
  savedReplies: '/admin/settings/saved-replies',
  kb: '/admin/kb',
  kbSettings: '/admin/kb/settings',
  /** Platform operators only: every workspace, plan changes, viewing as a member. */
  platform: '/admin/platform',
} as const;

/** Where to go after signing in: `next` when it is a console path, else the agents list. */
export function safeNext(next: string | undefined): string {
  // Only paths of this console: never another origin (`//evil`) nor a non-console page.
  if (next?.startsWith('/admin/') && !next.startsWith('//') && !next.includes('\\')) return next;
  return PATHS.agents;
}

/** The sign-in address that returns to `current` afterwards. */
export function signInPath(current: string): string {
  const isConsolePage = current.startsWith('/admin/') && !current.startsWith(PATHS.signIn);
  return isConsolePage && current !== PATHS.home
    ? `${PATHS.signIn}?next=${encodeURIComponent(current)}`
    : PATHS.signIn;
}

/** An agent's knowledge page (sources and uploads). */
export function knowledgePath(agentId: string): string {
  return `/admin/agents/${encodeURIComponent(agentId)}/knowledge`;
}

/** An agent's settings page (instructions, origins, features, theme, with a live preview). */
export function agentSettingsPath(agentId: string): string {
  return `/admin/agents/${encodeURIComponent(agentId)}/settings`;
}

/** An agent's playground (ask as a visitor would, see the chunks each answer used). */
export function playgroundPath(agentId: string): string {
  return `/admin/agents/${encodeURIComponent(agentId)}/playground`;
}

/** An agent's answer corrections (and "test a question": what would answer it, and why). */
export function correctionsPath(agentId: string): string {
  return `/admin/agents/${encodeURIComponent(agentId)}/corrections`;
}

/** An agent's unanswered and down-rated questions. */
export function questionsPath(agentId: string): string {
  return `/admin/agents/${encodeURIComponent(agentId)}/questions`;
}

/** An agent's quality: its golden set and evaluation runs. */
export function qualityPath(agentId: string): string {
  return `/admin/agents/${encodeURIComponent(agentId)}/quality`;
}

/** One conversation in the inbox (keeping the list's filters in `query`, when given). */
export function inboxPath(conversationId?: string, query = ''): string {
  const base = conversationId ? `/admin/inbox/${encodeURIComponent(conversationId)}` : '/admin/inbox';
  return query ? `${base}?${query}` : base;
}

/** An agent's analytics: daily numbers, top questions, most cited sources. */
export function analyticsPath(agentId: string): string {
  return `/admin/agents/${encodeURIComponent(agentId)}/analytics`;
}
