/* Chat agent settings page: Test connection, Sync now and the progress poll (no build step). */
(() => {
  const config = window.chatAgentAdmin;
  if (!config) {
    return;
  }
  const byId = (id) => document.getElementById(id);
  let pollTimer = null;

  const post = async (action, fields = {}) => {
    const body = new URLSearchParams({ action, nonce: config.nonce, ...fields });
    const response = await fetch(config.ajaxUrl, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
    try {
      return await response.json();
    } catch {
      return { ok: false, message: config.i18n.requestFailed };
    }
  };

  const setText = (element, text, isError) => {
    if (!element) {
      return;
    }
    element.textContent = text;
    element.classList.toggle('is-error', Boolean(isError));
    element.classList.toggle('is-ok', !isError);
  };

  const fillAgents = (agents, selected) => {
    const select = byId('chat-agent-agent');
    if (!select || !Array.isArray(agents)) {
      return;
    }
    const current = selected || select.value;
    while (select.options.length > 0) {
      select.remove(0);
    }
    select.add(new Option(config.i18n.chooseAgent, ''));
    for (const agent of agents) {
      const option = new Option(agent.name || agent.id, agent.id);
      option.selected = agent.id === current;
      select.add(option);
    }
  };

  const setProgress = (percent, status) => {
    const bar = byId('chat-agent-sync-progress');
    if (!bar) {
      return;
    }
    bar.setAttribute('data-status', status);
    bar.setAttribute('aria-valuenow', String(percent));
    const fill = bar.querySelector('.chat-agent-progress-bar');
    if (fill) {
      fill.style.width = `${percent}%`;
    }
  };

  const showFailures = (failures) => {
    const list = byId('chat-agent-sync-failures');
    if (!list || !Array.isArray(failures)) {
      return;
    }
    list.textContent = '';
    const none = byId('chat-agent-sync-no-failures');
    if (none) {
      none.hidden = failures.length > 0;
    }
    for (const failure of failures) {
      const item = document.createElement('li');
      const time = document.createElement('time');
      time.textContent = failure.time;
      const what = document.createElement('strong');
      what.textContent = failure.what;
      item.append(time, ' ', what, `: ${failure.message}`);
      list.appendChild(item);
    }
  };

  const showStatus = (status) => {
    if (typeof status.percent === 'number') {
      setProgress(status.percent, status.status || 'idle');
    }
    setText(
      byId('chat-agent-sync-status'),
      status.message || '',
      status.status === 'failed' || status.ok === false,
    );
    showFailures(status.failures);
    if (status.status === 'running') {
      schedulePoll();
    }
  };

  const pollFailed = () => setText(byId('chat-agent-sync-status'), config.i18n.requestFailed, true);

  function schedulePoll() {
    if (pollTimer) {
      return;
    }
    pollTimer = window.setTimeout(() => {
      pollTimer = null;
      post('chat_agent_sync_status').then(showStatus, pollFailed);
    }, 1500);
  }

  const testButton = byId('chat-agent-test-connection');
  testButton?.addEventListener('click', async () => {
    const result = byId('chat-agent-connection-result');
    setText(result, config.i18n.testing, false);
    testButton.disabled = true;
    try {
      const answer = await post('chat_agent_test_connection', {
        service_url: byId('chat-agent-service-url')?.value ?? '',
        api_token: byId('chat-agent-api-token')?.value ?? '',
      });
      setText(result, answer.message || config.i18n.requestFailed, !answer.ok);
      if (answer.ok) {
        fillAgents(answer.agents, answer.agent_id);
      }
    } catch {
      setText(result, config.i18n.requestFailed, true);
    } finally {
      testButton.disabled = false;
    }
  });

  const syncButton = byId('chat-agent-sync-now');
  syncButton?.addEventListener('click', () => {
    setText(byId('chat-agent-sync-status'), config.i18n.starting, false);
    setProgress(0, 'running');
    post('chat_agent_sync_now').then(showStatus, pollFailed);
  });

  if (byId('chat-agent-sync-progress')?.getAttribute('data-status') === 'running') {
    schedulePoll();
  }
})();
