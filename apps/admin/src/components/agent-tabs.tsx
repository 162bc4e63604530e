import { useLocation } from 'preact-iso';
import {
  agentSettingsPath,
  correctionsPath,
  knowledgePath,
  PATHS,
  playgroundPath,
  qualityPath,
  questionsPath,
} from '../paths';

type Props = {
  agentId: string;
  /** The agent's name, or null while it loads. */
  agentName: string | null;
};

/** The header of every per-agent page: the breadcrumb back to the list and the agent's sections. */
export function AgentTabs(props: Props) {
  const { path } = useLocation();
  const tabs = [
    { href: knowledgePath(props.agentId), label: 'Knowledge' },
    { href: playgroundPath(props.agentId), label: 'Playground' },
    { href: questionsPath(props.agentId), label: 'Questions' },
    { href: correctionsPath(props.agentId), label: 'Corrections' },
    { href: qualityPath(props.agentId), label: 'Quality' },
    { href: agentSettingsPath(props.agentId), label: 'Settings' },
  ];
  return (
    <div class="agent-head">
      <p class="muted crumb">
        <a href={PATHS.agents}>Agents</a> / {props.agentName ?? '…'}
      </p>
      <nav class="agent-tabs" aria-label="Agent">
        {tabs.map((tab) => (
          <a key={tab.href} href={tab.href} aria-current={path === tab.href ? 'page' : undefined}>
            {tab.label}
          </a>
        ))}
      </nav>
    </div>
  );
}
