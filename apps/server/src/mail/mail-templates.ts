/** Languages the mail templates are written in; anything else gets English. */
export const MAIL_LANGUAGES = ['en', 'de', 'fr'] as const;
export type MailLanguage = (typeof MAIL_LANGUAGES)[number];

/** A rendered mail: its subject, a plain-text body and a simple HTML body. */
export type RenderedMail = { subject: string; text: string; html: string };

/** What the password-reset mail says, per language (`{minutes}` is the token's lifetime). */
const PASSWORD_RESET: Record<
  MailLanguage,
  { subject: string; intro: string; action: string; expiry: string; ignore: string }
> = {
  en: {
    subject: 'Reset your password',
    intro: 'Someone asked to reset the password of your account ({email}).',
    action: 'Choose a new password',
    expiry: 'The link works once, within {minutes} minutes.',
    ignore: 'If you did not ask for this, ignore this mail: your password stays as it is.',
  },
  de: {
    subject: 'Passwort zurücksetzen',
    intro: 'Jemand möchte das Passwort Ihres Kontos ({email}) zurücksetzen.',
    action: 'Neues Passwort wählen',
    expiry: 'Der Link funktioniert einmal, innerhalb von {minutes} Minuten.',
    ignore: 'Wenn Sie das nicht waren, ignorieren Sie diese Mail: Ihr Passwort bleibt unverändert.',
  },
  fr: {
    subject: 'Réinitialiser votre mot de passe',
    intro: 'Quelqu’un a demandé à réinitialiser le mot de passe de votre compte ({email}).',
    action: 'Choisir un nouveau mot de passe',
    expiry: 'Le lien fonctionne une seule fois, pendant {minutes} minutes.',
    ignore:
      'Si vous n’êtes pas à l’origine de cette demande, ignorez ce message : votre mot de passe ne change pas.',
  },
};

/**
 * The best template language for an Accept-Language header (RFC 9110 §12.5.4: ranges by
 * descending q; a regional tag falls back to its base language), or English.
 */
export function pickMailLanguage(acceptLanguage: string | undefined): MailLanguage {
  if (!acceptLanguage) return 'en';
  const ranges = acceptLanguage
    .slice(0, 500)
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return {
        base: tag.trim().toLowerCase().split('-')[0] ?? '',
        q: q === undefined ? 1 : Number(q),
        index,
      };
    })
    .filter((range) => range.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const range of ranges) {
    const found = MAIL_LANGUAGES.find((language) => language === range.base);
    if (found) return found;
  }
  return 'en';
}

/** The password-reset mail in `language`: the link, the lifetime, and what to do if it was not you. */
export function renderPasswordResetMail(options: {
  language: MailLanguage;
  email: string;
  link: string;
  minutes: number;
}): RenderedMail {
  const words = PASSWORD_RESET[options.language];
  const fill = (text: string) =>
    text.replace('{email}', options.email).replace('{minutes}', String(options.minutes));
  return renderActionMail(options.language, {
    subject: words.subject,
    intro: fill(words.intro),
    action: words.action,
    link: options.link,
    expiry: fill(words.expiry),
    ignore: words.ignore,
  });
}

/** What the invite mail says, per language (`{workspace}`, `{role}`, `{days}`). */
const INVITE: Record<
  MailLanguage,
  { subject: string; intro: string; action: string; expiry: string; ignore: string }
> = {
  en: {
    subject: 'You are invited to {workspace}',
    intro: 'You are invited to join the workspace {workspace} as {role}.',
    action: 'Accept the invitation',
    expiry: 'The link works once, within {days} days.',
    ignore: 'If you did not expect this, ignore this mail: nothing happens without the link.',
  },
  de: {
    subject: 'Einladung zu {workspace}',
    intro: 'Sie sind eingeladen, dem Arbeitsbereich {workspace} als {role} beizutreten.',
    action: 'Einladung annehmen',
    expiry: 'Der Link funktioniert einmal, innerhalb von {days} Tagen.',
    ignore: 'Wenn Sie das nicht erwartet haben, ignorieren Sie diese Mail: ohne den Link geschieht nichts.',
  },
  fr: {
    subject: 'Invitation à {workspace}',
    intro: 'Vous êtes invité à rejoindre l’espace de travail {workspace} en tant que {role}.',
    action: 'Accepter l’invitation',
    expiry: 'Le lien fonctionne une seule fois, pendant {days} jours.',
    ignore: 'Si vous ne l’attendiez pas, ignorez ce message : rien ne se passe sans le lien.',
  },
};

/** The invite mail in `language`: the workspace, the role, the accept link and its lifetime. */
export function renderInviteMail(options: {
  language: MailLanguage;
  workspace: string;
  role: string;
  link: string;
  days: number;
}): RenderedMail {
  const words = INVITE[options.language];
  const fill = (text: string) =>
    text
      .replace('{workspace}', options.workspace)
      .replace('{role}', options.role)
      .replace('{days}', String(options.days));
  return renderActionMail(options.language, {
    subject: fill(words.subject),
    intro: fill(words.intro),
    action: words.action,
    link: options.link,
    expiry: fill(words.expiry),
    ignore: words.ignore,
  });
}

/** What the "your password was changed" notice says, per language. */
const PASSWORD_CHANGED: Record<
  MailLanguage,
  { subject: string; intro: string; action: string; sessions: string; ignore: string }
> = {
  en: {
    subject: 'Your password was changed',
    intro: 'The password of your account ({email}) was changed. Your other sessions were signed out.',
    action: 'This was not you? Reset your password',
    sessions: 'Changed at {time} (UTC).',
    ignore: 'If you changed it yourself, there is nothing to do.',
  },
  de: {
    subject: 'Ihr Passwort wurde geändert',
    intro: 'Das Passwort Ihres Kontos ({email}) wurde geändert. Ihre anderen Sitzungen wurden abgemeldet.',
    action: 'Das waren nicht Sie? Passwort zurücksetzen',
    sessions: 'Geändert um {time} (UTC).',
    ignore: 'Wenn Sie es selbst geändert haben, ist nichts zu tun.',
  },
  fr: {
    subject: 'Votre mot de passe a été modifié',
    intro:
      'Le mot de passe de votre compte ({email}) a été modifié. Vos autres sessions ont été déconnectées.',
    action: 'Ce n’était pas vous ? Réinitialisez votre mot de passe',
    sessions: 'Modifié le {time} (UTC).',
    ignore: 'Si vous l’avez modifié vous-même, il n’y a rien à faire.',
  },
};

/** The notice after a password change: when, and where to reset it if it was not the user. */
export function renderPasswordChangedMail(options: {
  language: MailLanguage;
  email: string;
  /** The console's "forgot password" page. */
  link: string;
  changedAt: Date;
}): RenderedMail {
  const words = PASSWORD_CHANGED[options.language];
  const time = options.changedAt.toISOString().slice(0, 16).replace('T', ' ');
  return renderActionMail(options.language, {
    subject: words.subject,
    intro: words.intro.replace('{email}', options.email),
    action: words.action,
    link: options.link,
    expiry: words.sessions.replace('{time}', time),
    ignore: words.ignore,
  });
}

/** What the "a visitor waits for a human" mail says, per language. */
const HANDOFF: Record<
  MailLanguage,
  { subject: string; intro: string; noMessage: string; action: string; waiting: string; ignore: string }
> = {
  en: {
    subject: 'A visitor is waiting for a human ({agent})',
    intro:
      'A visitor of {agent} asked for a human {minutes} min ago and nobody has claimed the conversation yet. Their last message:',
    noMessage: '(no message)',
    action: 'Open the conversation',
    waiting: 'Asked at {time} (UTC).',
    ignore: 'You get this mail because your role may answer conversations in {workspace}.',
  },
  de: {
    subject: 'Ein Besucher wartet auf einen Menschen ({agent})',
    intro:
      'Ein Besucher von {agent} hat vor {minutes} Min. nach einem Menschen gefragt, und noch niemand hat das Gespräch übernommen. Seine letzte Nachricht:',
    noMessage: '(keine Nachricht)',
    action: 'Gespräch öffnen',
    waiting: 'Gefragt um {time} (UTC).',
    ignore: 'Sie erhalten diese Mail, weil Ihre Rolle in {workspace} Gespräche beantworten darf.',
  },
  fr: {
    subject: 'Un visiteur attend un humain ({agent})',
    intro:
      'Un visiteur de {agent} a demandé un humain il y a {minutes} min et personne n’a encore pris la conversation. Son dernier message :',
    noMessage: '(aucun message)',
    action: 'Ouvrir la conversation',
    waiting: 'Demandé le {time} (UTC).',
    ignore: 'Vous recevez ce message car votre rôle peut répondre aux conversations de {workspace}.',
  },
};

/** The mail to operators of a handoff nobody claimed: the agent, the visitor's last message, the link. */
export function renderHandoffMail(options: {
  language: MailLanguage;
  workspace: string;
  agent: string;
  message: string | null;
  link: string;
  requestedAt: Date;
  minutes: number;
}): RenderedMail {
  const words = HANDOFF[options.language];
  const fill = (text: string) =>
    text
      .replace('{agent}', oneLine(options.agent))
      .replace('{workspace}', oneLine(options.workspace))
      .replace('{minutes}', String(options.minutes))
      .replace('{time}', options.requestedAt.toISOString().slice(0, 16).replace('T', ' '));
  return renderActionMail(options.language, {
    subject: fill(words.subject),
    intro: fill(words.intro),
    quote: options.message ?? words.noMessage,
    action: words.action,
    link: options.link,
    expiry: fill(words.waiting),
    ignore: fill(words.ignore),
  });
}

/** A name on one line (a subject never carries a line break). */
function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ').slice(0, 200);
}

/**
 * A mail that asks for one action through a link, as plain text and simple HTML: what it is
 * about, the link (a button and written out), how long it works, and what to do if unexpected.
 */
function renderActionMail(
  language: MailLanguage,
  parts: {
    subject: string;
    intro: string;
    /** Quoted text shown under the intro (a visitor's message), escaped. */
    quote?: string;
    action: string;
    link: string;
    expiry: string;
    ignore: string;
  },
): RenderedMail {
  const quoted =
    parts.quote === undefined ? [] : [...parts.quote.split(/\r?\n/).map((line) => `> ${line}`), ''];
  const text = [
    parts.intro,
    '',
    ...quoted,
    `${parts.action}:`,
    parts.link,
    '',
    parts.expiry,
    parts.ignore,
    '',
  ].join('\n');
  const html = [
    '<!doctype html>',
    `<html lang="${language}"><head><meta charset="utf-8"><title>${escapeHtml(parts.subject)}</title></head>`,
    '<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1f2328; max-width: 560px; margin: 0 auto; padding: 24px;">',
    `<p>${escapeHtml(parts.intro)}</p>`,
    ...(parts.quote === undefined
      ? []
      : [
          `<blockquote style="margin: 0 0 16px; padding: 8px 12px; border-left: 3px solid #d0d7de; color: #1f2328; white-space: pre-wrap;">${escapeHtml(parts.quote)}</blockquote>`,
        ]),
    `<p><a href="${escapeHtml(parts.link)}" style="display: inline-block; padding: 10px 16px; background: #2563eb; color: #ffffff; border-radius: 6px; text-decoration: none;">${escapeHtml(parts.action)}</a></p>`,
    `<p style="word-break: break-all; font-size: 13px; color: #57606a;">${escapeHtml(parts.link)}</p>`,
    `<p>${escapeHtml(parts.expiry)}</p>`,
    `<p style="color: #57606a;">${escapeHtml(parts.ignore)}</p>`,
    '</body></html>',
    '',
  ].join('\n');
  return { subject: parts.subject, text, html };
}

/** Escapes text for HTML content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
