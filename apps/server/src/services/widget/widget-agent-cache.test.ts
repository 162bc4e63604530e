import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AgentRow } from '../../db/schema.js';
import {
  cachedWidgetAgent,
  cacheWidgetAgent,
  forgetWidgetAgents,
  WIDGET_AGENT_CACHE_MS,
  widgetAgentGeneration,
} from './widget-agent-cache.js';
import type { WidgetAgent } from './widget-session.js';

function widgetAgent(id: string): WidgetAgent {
  const agent: AgentRow = {
    id,
    workspace_id: 'ws',
    name: 'Shop agent',
    site_type: 'generic',
    language_default: null,
    is_published: true,
    allowed_origins: ['https://shop.example.com'],
    theme: { position: 'bottom-right', primary: '#000000', accent: '#ffffff', radius: 8, launcher_label: '' },
    system_prompt: '',
    behavior_rules: [],
    auto_index_pages: false,
    widget_features: {},
    welcome: null,
    created_at: new Date(0),
    updated_at: new Date(0),
  };
  return { agent, hasCoupons: false };
}

describe('widget agent cache', () => {
  test('serves an agent for 1 s, per database, and not after', () => {
    const db = {};
    const other = {};
    const value = widgetAgent('a1');
    cacheWidgetAgent(db, value, widgetAgentGeneration(), 1000);
    assert.equal(cachedWidgetAgent(db, 'a1', 1000 + WIDGET_AGENT_CACHE_MS - 1), value);
    assert.equal(cachedWidgetAgent(other, 'a1', 1001), null, 'another database has its own');
    assert.equal(cachedWidgetAgent(db, 'a2', 1001), null);
    assert.equal(cachedWidgetAgent(db, 'a1', 1000 + WIDGET_AGENT_CACHE_MS), null, 'expired at 1 s');
    assert.equal(cachedWidgetAgent(db, 'a1', 1001), null, 'and dropped');
  });

  test('a clear drops every entry, and an answer read across a clear is never served', () => {
    const db = {};
    cacheWidgetAgent(db, widgetAgent('a1'), widgetAgentGeneration(), 0);
    forgetWidgetAgents();
    assert.equal(cachedWidgetAgent(db, 'a1', 1), null);
    const readAt = widgetAgentGeneration();
    forgetWidgetAgents();
    cacheWidgetAgent(db, widgetAgent('a2'), readAt, 0);
    assert.equal(cachedWidgetAgent(db, 'a2', 1), null);
  });
});
