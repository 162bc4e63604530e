import type { TPermission } from '@service/contract';
import { useLocation } from 'preact-iso';
import {
  agentSettingsPath,
  analyticsPath,
  correctionsPath,
  knowledgePath,
  PATHS,
  playgroundPath,
  qualityPath,
  questionsPath,
} from '../paths';
import { can } from '../session';

type Props = {
  agentId: string;
  /** The agent's name, or null while it loads. */
  agentName: string | null;
};

/** The header of every per-agent page: the breadcrumb back to the list and the agent's sections. */
export function AgentTabs(props: Props) {
  const { path } = useLocation();
  // A section the role cannot use (docs/roles.md) is not offered: the playground asks the agent
  // (knowledge.edit), the settings change it (workspace.configure).
  const tabs = [
    { href: knowledgePath(props.agentId), label: 'Knowledge', permission: 'workspace.read' },
    { href: playgroundPath(props.agentId), label: 'Playground', permission: 'knowledge.edit' },
    { href: questionsPath(props.agentId), label: 'Questions', permission: 'workspace.read' },
    { href: correctionsPath(props.agentId), label: 'Corrections', permission: 'workspace.read' },
    { href: qualityPath(props.agentId), label: 'Quality', permission: 'workspace.read' },
    { href: analyticsPath(props.agentId), label: 'Analytics', permission: 'workspace.read' },
    { href: agentSettingsPath(props.agentId), label: 'Settings', permission: 'workspace.configure' },
  ] as const satisfies ReadonlyArray<{ href: string; label: string; permission: TPermission }>;
  return (
    <div class="agent-head">
      <p class="muted crumb">
        <a href={PATHS.agents}>Agents</a> / {props.agentName ?? '…'}
      </p>
      <nav class="agent-tabs" aria-label="Agent">
        {tabs
          .filter((tab) => can(tab.permission))
          .map((tab) => (
            <a key={tab.href} href={tab.href} aria-current={path === tab.href ? 'page' : undefined}>
              {tab.label}
            </a>
          ))}
      </nav>
    </div>
  );
}
