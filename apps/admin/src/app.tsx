import { useSignalEffect } from '@preact/signals';
import { useEffect, useState } from 'preact/hooks';
import { ErrorBoundary, LocationProvider, lazy, Route, Router, useLocation } from 'preact-iso';
import { Shell } from './components/shell';
import { PATHS, safeNext, signInPath } from './paths';
import { loadSession, needsSetup, session, signedOut } from './session';

const Setup = lazy(() => import('./routes/setup').then((module) => module.Setup));
const SignIn = lazy(() => import('./routes/sign-in').then((module) => module.SignIn));
const ForgotPassword = lazy(() => import('./routes/forgot-password').then((module) => module.ForgotPassword));
const ResetPassword = lazy(() => import('./routes/reset-password').then((module) => module.ResetPassword));
const Inbox = lazy(() => import('./routes/inbox').then((module) => module.Inbox));
const Agents = lazy(() => import('./routes/agents').then((module) => module.Agents));
const NewAgent = lazy(() => import('./routes/new-agent').then((module) => module.NewAgent));
const Knowledge = lazy(() => import('./routes/knowledge').then((module) => module.Knowledge));
const Playground = lazy(() => import('./routes/playground').then((module) => module.Playground));
const AgentSettings = lazy(() => import('./routes/agent-settings').then((module) => module.AgentSettings));
const Members = lazy(() => import('./routes/members').then((module) => module.Members));
const Plan = lazy(() => import('./routes/plan').then((module) => module.Plan));
const AcceptInvite = lazy(() => import('./routes/accept-invite').then((module) => module.AcceptInvite));
const Tokens = lazy(() => import('./routes/tokens').then((module) => module.Tokens));
const TwoFactor = lazy(() => import('./routes/two-factor').then((module) => module.TwoFactor));
const Corrections = lazy(() => import('./routes/corrections').then((module) => module.Corrections));
const Questions = lazy(() => import('./routes/questions').then((module) => module.Questions));
const Quality = lazy(() => import('./routes/quality').then((module) => module.Quality));
const Analytics = lazy(() => import('./routes/analytics').then((module) => module.Analytics));
const KbSettings = lazy(() => import('./routes/kb-settings').then((module) => module.KbSettings));
const KbArticles = lazy(() => import('./routes/kb-articles').then((module) => module.KbArticles));
const Platform = lazy(() => import('./routes/platform').then((module) => module.Platform));
const Leads = lazy(() => import('./routes/leads').then((module) => module.Leads));
const Profile = lazy(() => import('./routes/profile').then((module) => module.Profile));
const ModelKey = lazy(() => import('./routes/model-key').then((module) => module.ModelKey));
const AuditLog = lazy(() => import('./routes/audit-log').then((module) => module.AuditLog));
const Webhooks = lazy(() => import('./routes/webhooks').then((module) => module.Webhooks));
const SavedReplies = lazy(() => import('./routes/saved-replies').then((module) => module.SavedReplies));
const NotFound = lazy(() => import('./routes/not-found').then((module) => module.NotFound));

/** The console: decides, from the session, which screen a path may show, then routes. */
export function App() {
  return (
    <LocationProvider>
      <ErrorBoundary>
        <Gate />
      </ErrorBoundary>
    </LocationProvider>
  );
}

const PUBLIC_PATHS: readonly string[] = [PATHS.setup, PATHS.signIn, PATHS.forgotPassword];
/** Screens a signed-out visitor may open besides sign-in (asking for and using a reset link). */
const SIGNED_OUT_PATHS: readonly string[] = [
  PATHS.signIn,
  PATHS.forgotPassword,
  PATHS.resetPassword,
  PATHS.acceptInvite,
];

function Gate() {
  const location = useLocation();
  const [loadError, setLoadError] = useState<string | null>(null);
  useEffect(() => {
    loadSession().catch((error: unknown) =>
      setLoadError(error instanceof Error ? error.message : 'The console could not start.'),
    );
  }, []);

  // Keeps the path in step with the session: setup first, then sign-in, then the console.
  useSignalEffect(() => {
    const current = session.value;
    const setup = needsSetup.value;
    if (current === undefined || setup === undefined) return;
    const here = location.path;
    if (setup) {
      if (here !== PATHS.setup) location.route(PATHS.setup, true);
    } else if (current === null) {
      if (!SIGNED_OUT_PATHS.includes(here))
        location.route(signedOut.peek() ? PATHS.signIn : signInPath(location.url), true);
    } else if (PUBLIC_PATHS.includes(here) || here === PATHS.home || here === '/admin') {
      location.route(safeNext(location.query.next), true);
    }
  });

  if (loadError) {
    return (
      <main class="center-page">
        <div class="card" role="alert">
          <h1>The console could not start</h1>
          <p>{loadError}</p>
        </div>
      </main>
    );
  }
  if (session.value === undefined || needsSetup.value === undefined) {
    return (
      <main class="center-page" aria-busy="true">
        <p class="muted">Loading…</p>
      </main>
    );
  }
  // A reset link works whether or not this browser is signed in (to this or another account).
  if (location.path === PATHS.resetPassword && !needsSetup.value) return <ResetPassword />;
  // So does an invite link: a new account is made on the page, an existing one signs in first.
  if (location.path === PATHS.acceptInvite && !needsSetup.value) return <AcceptInvite />;
  if (needsSetup.value || session.value === null) {
    return (
      <Router>
        <Route path={PATHS.setup} component={Setup} />
        <Route path={PATHS.forgotPassword} component={ForgotPassword} />
        <Route default component={SignIn} />
      </Router>
    );
  }
  return (
    <Shell>
      <Router>
        <Route path={PATHS.inbox} component={Inbox} />
        <Route path={PATHS.inboxConversation} component={Inbox} />
        <Route path={PATHS.agents} component={Agents} />
        <Route path={PATHS.newAgent} component={NewAgent} />
        <Route path={PATHS.knowledge} component={Knowledge} />
        <Route path={PATHS.playground} component={Playground} />
        <Route path={PATHS.agentSettings} component={AgentSettings} />
        <Route path={PATHS.corrections} component={Corrections} />
        <Route path={PATHS.questions} component={Questions} />
        <Route path={PATHS.quality} component={Quality} />
        <Route path={PATHS.analytics} component={Analytics} />
        <Route path={PATHS.tokens} component={Tokens} />
        <Route path={PATHS.members} component={Members} />
        <Route path={PATHS.plan} component={Plan} />
        <Route path={PATHS.twoFactor} component={TwoFactor} />
        <Route path={PATHS.profile} component={Profile} />
        <Route path={PATHS.forgotPassword} component={ForgotPassword} />
        <Route path={PATHS.leads} component={Leads} />
        <Route path={PATHS.modelKey} component={ModelKey} />
        <Route path={PATHS.auditLog} component={AuditLog} />
        <Route path={PATHS.webhooks} component={Webhooks} />
        <Route path={PATHS.savedReplies} component={SavedReplies} />
        <Route path={PATHS.kb} component={KbArticles} />
        <Route path={PATHS.kbSettings} component={KbSettings} />
        <Route path={PATHS.platform} component={Platform} />
        <Route default component={NotFound} />
      </Router>
    </Shell>
  );
}
