import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { storedMailText } from '../../../server/test/support/mail.js';
import { addMember as addRoleMember, MEMBER_PASSWORD } from '../../../server/test/support/members.js';
import { seedTenant, type Tenant } from '../../../server/test/support/test-app.js';
import {
  type ConsoleService,
  checkScreen,
  createAgentAs,
  launchBrowser,
  signIn,
  startConsoleService,
  withPage,
} from './support/console.js';

// The members page and the accept-invite page in Chromium against the real service: an owner
// sees the members, invites by email, changes a role and revokes an invite; a viewer's nav has
// neither Members nor API tokens, and a page their role can't use says so plainly; a new person
// opens the mailed link, chooses a name and password, and can sign in.

const PASSWORD = 'correct horse battery';

describe('admin console: members and invites', () => {
  let browser: Browser;
  let service: ConsoleService;
  let tenant: Tenant;
  let editor: { userId: string; email: string };
  let viewer: { userId: string; email: string };

  before(async () => {
    browser = await launchBrowser();
    service = await startConsoleService();
    tenant = await seedTenant(service.t, 'Acme Members');
    editor = await addRoleMember(service.t, tenant, 'editor');
    viewer = await addRoleMember(service.t, tenant, 'viewer');
    await createAgentAs(service.t, tenant, 'Viewer-visible helper');
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  /** The owner's cookies: signed in once for the file (the login limit is 5 a minute). */
  let ownerCookies: Awaited<ReturnType<BrowserContext['cookies']>> | null = null;

  async function openMembersAsOwner(page: Page): Promise<void> {
    if (ownerCookies) {
      await page.context().addCookies(ownerCookies);
      await page.goto(`${service.base}/admin/agents`);
    } else {
      await signIn(page, service.base, { email: tenant.user.email, password: PASSWORD });
      ownerCookies = await page.context().cookies();
    }
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click();
    await page.waitForURL(`${service.base}/admin/members`);
    await page.getByRole('list', { name: 'Members' }).waitFor();
  }

  async function roleOf(userId: string): Promise<string | null> {
    const row = await service.t.database.db
      .selectFrom('memberships')
      .select('role')
      .where('workspace_id', '=', tenant.workspace.id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row?.role ?? null;
  }

  test('an owner invites by email, changes a role and revokes an invite', async () => {
    await withPage(browser, {}, async ({ page }) => {
      await openMembersAsOwner(page);
      const members = page.getByRole('list', { name: 'Members' });
      await members.getByText(editor.email).first().waitFor();
      assert.equal(await members.getByRole('listitem').count(), 3);

      await page.getByRole('button', { name: 'Invite' }).click();
      const form = page.getByRole('form', { name: 'Invite a member' });
      await form.getByLabel('Email').fill('not-an-email');
      await form.getByRole('button', { name: 'Send invite' }).click();
      await form.locator('.field-error').first().waitFor();
      await form.getByLabel('Email').fill('new.colleague@example.com');
      await form.getByLabel('Role').selectOption('viewer');
      await form.getByRole('button', { name: 'Send invite' }).click();
      const pending = page.getByRole('list', { name: 'Pending invites' });
      await pending.getByText('new.colleague@example.com').waitFor();
      await checkScreen(page, 'members');

      const editorRow = members.getByRole('listitem').filter({ hasText: editor.email });
      await editorRow.getByLabel('Role').selectOption('viewer');
      await editorRow.getByRole('button', { name: 'Change role' }).click();
      await editorRow.locator('.badge', { hasText: 'viewer' }).waitFor();
      assert.equal(await roleOf(editor.userId), 'viewer');

      await pending.getByRole('button', { name: 'Revoke invite' }).click();
      await pending.waitFor({ state: 'detached' });
      const open = await service.t.database.db
        .selectFrom('workspace_invites')
        .select('revoked_at')
        .where('email', '=', 'new.colleague@example.com')
        .executeTakeFirstOrThrow();
      assert.ok(open.revoked_at);
    });
  });

  test("a viewer's nav hides Members and API tokens; a page their role can't use says so", async () => {
    await withPage(
      browser,
      {},
      async ({ page }) => {
        await signIn(page, service.base, { email: viewer.email, password: MEMBER_PASSWORD });
        const nav = page.getByRole('navigation', { name: 'Main' });
        await nav.getByRole('link', { name: 'Agents' }).waitFor();
        assert.equal(await nav.getByRole('link', { name: 'Members' }).count(), 0);
        assert.equal(await nav.getByRole('link', { name: 'API tokens' }).count(), 0);
        // The agents list offers what a viewer can open, not what only an admin can do.
        const agent = page.getByRole('listitem').filter({ hasText: 'Viewer-visible helper' });
        await agent.getByRole('link', { name: /Manage knowledge/ }).waitFor();
        assert.equal(await page.getByRole('link', { name: 'New agent' }).count(), 0);
        assert.equal(await agent.getByRole('link', { name: /Settings/ }).count(), 0);
        await agent.getByRole('link', { name: /Manage knowledge/ }).click();
        const tabs = page.getByRole('navigation', { name: 'Agent' });
        await tabs.getByRole('link', { name: 'Questions' }).waitFor();
        assert.equal(await tabs.getByRole('link', { name: 'Playground' }).count(), 0);
        assert.equal(await tabs.getByRole('link', { name: 'Settings' }).count(), 0);
        // Knowledge is read, not changed: no form to add a source, no uploads.
        await page.getByText('An owner or admin of this workspace adds its sources.').waitFor();
        assert.equal(await page.getByRole('heading', { name: 'Add a source' }).count(), 0);
        assert.equal(await page.getByRole('heading', { name: 'Upload files' }).count(), 0);
        await checkScreen(page, 'viewer-knowledge');
        // Read, not written: corrections, the quality page and the KB offer no action.
        await tabs.getByRole('link', { name: 'Corrections' }).click();
        await page.getByRole('heading', { name: 'Corrections', level: 1 }).waitFor();
        assert.equal(await page.getByRole('button', { name: 'New correction' }).count(), 0);
        await tabs.getByRole('link', { name: 'Quality' }).click();
        await page.getByRole('heading', { name: 'Evaluation runs' }).waitFor();
        assert.equal(await page.getByRole('button', { name: 'Run evaluation now' }).count(), 0);
        assert.equal(await page.getByRole('button', { name: 'Add a question' }).count(), 0);
        await nav.getByRole('link', { name: 'Knowledge base' }).click();
        await page.getByRole('heading', { name: 'Knowledge base', level: 1 }).waitFor();
        assert.equal(await page.getByRole('button', { name: 'New article' }).count(), 0);
        assert.equal(await page.getByRole('link', { name: 'Settings', exact: true }).count(), 0);
        await page.goto(`${service.base}/admin/tokens`);
        await page.getByText("Your role (viewer) can't do this.").waitFor();
        await page.goto(`${service.base}/admin/members`);
        await page.getByText("Your role (viewer) can't do this.").first().waitFor();
      },
      /^(401 GET \/api\/v1\/admin\/session|403 GET \/api\/v1\/admin\/(tokens|members|invites))$/,
    );
  });

  test('a new person accepts the mailed invite with a name and a password, then signs in', async () => {
    const created = await service.t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/invites',
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'joiner@example.com', role: 'editor' }),
    });
    assert.equal(created.statusCode, 201, created.body);
    const mail = await service.t.database.db
      .selectFrom('mail_messages')
      .select('id')
      .where('to_address', '=', 'joiner@example.com')
      .executeTakeFirstOrThrow();
    const text = await storedMailText(service.t.database.db, service.t.config.appKey, mail.id);
    const link = /https?:\/\/\S+\/admin\/accept-invite#token=\S+/.exec(text)?.[0];
    assert.ok(link, text);
    const path = new URL(link);

    await withPage(browser, {}, async ({ page }) => {
      await page.goto(`${service.base}${path.pathname}${path.hash}`);
      await page.getByRole('heading', { name: 'Join Acme Members' }).waitFor();
      assert.equal(new URL(page.url()).hash, '', 'the token left the address bar');
      await checkScreen(page, 'accept-invite');
      await page.getByLabel('Your name').fill('Jo Iner');
      await page.getByLabel('Choose a password').fill('short');
      await page.getByRole('button', { name: 'Create my account and join' }).click();
      await page.locator('.field-error').first().waitFor();
      await page.getByLabel('Choose a password').fill('a long enough password');
      await page.getByRole('button', { name: 'Create my account and join' }).click();
      await page.getByRole('heading', { name: 'You joined Acme Members' }).waitFor();
      await page.getByRole('link', { name: 'Sign in' }).click();
      await signIn(page, service.base, { email: 'joiner@example.com', password: 'a long enough password' });
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Agents' }).waitFor();
      assert.equal(
        await nav.getByRole('link', { name: 'Members' }).count(),
        0,
        'an editor does not manage members',
      );
    });
    const user = await service.t.database.db
      .selectFrom('users')
      .select(['id', 'role', 'byok_enabled', 'name'])
      .where('email', '=', 'joiner@example.com')
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      { role: user.role, byok: user.byok_enabled, name: user.name },
      { role: 'user', byok: false, name: 'Jo Iner' },
    );
    assert.equal(await roleOf(user.id), 'editor');
  });
});
